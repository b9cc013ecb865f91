package core

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
)

// Access is how an operation uses a buffer.
type Access uint8

// Accesses: a kernel's read-only pointer or a copy's source reads; every
// other use writes.
const (
	Read Access = iota + 1
	Write
)

func (a Access) String() string {
	if a == Read {
		return "reads"
	}
	return "writes"
}

// MaxReaders bounds the readers a buffer tracks since its last writer. A
// reader beyond it waits for the oldest, which it then stands for: the
// set stays bounded and a writer still waits for every reader.
const MaxReaders = 4

// deps is a buffer's dependency state: its last writer and the readers
// since, each the fence of one packet, retained. Guarded by Mem.mu.
type deps struct {
	writer  *Fence
	readers [MaxReaders]*Fence
	n       int
	manual  bool // the program orders this buffer's uses itself
}

// Order is how a stream treats the dependencies its packets find.
type Order uint8

// Orders: Auto inserts a BARRIER_AND for each; Manual leaves them to the
// program (events), as HIP does; Check inserts none and reports each one
// the program did not order with an event.
const (
	Auto Order = iota
	Manual
	Check
)

// Use records that the packet whose fence is f uses m with acc, and
// appends to deps the fences f must wait for: the last writer for a read;
// the last writer and the readers since for a write; fences of f's own
// queue and completed ones are skipped. It fails, recording nothing, when
// m was freed: the check and the record are one step with respect to
// Free. Under Check, a dependency the stream did not order is an error
// naming both operations; under Manual (or a manual buffer) none is
// returned.
func (m *Mem) Use(s *Stream, f *Fence, acc Access, deps []*Fence) ([]*Fence, error) {
	// An operation's buffers are recorded under recording (see useAll and
	// Launch.Use), so it never depends on one recorded after it.
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.freed.Load() {
		return deps, gpu.Errorf(gpu.ErrorInvalidValue, f.op, "%s was freed", m)
	}
	d := &m.deps
	order := s.order
	if d.manual && order == Auto {
		order = Manual
	}
	need := func(w *Fence) error {
		if w == nil || w.queue == f.queue || w.Done() {
			return nil
		}
		switch order {
		case Manual:
			// The sanitizer checks what the program orders by hand.
			if !rocr.Sanitizing() || s.ordered(w) {
				return nil
			}
			return gpu.Errorf(gpu.ErrorInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_SANITIZE)",
				f.name(), f.queue, acc, m, w.name(), w.queue, w.acc)
		case Check:
			if s.ordered(w) {
				return nil
			}
			return gpu.Errorf(gpu.ErrorInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_CHECK_DEPS)",
				f.name(), f.queue, acc, m, w.name(), w.queue, w.acc)
		}
		for _, d := range deps {
			if d == w { // buffers last used by one packet: wait once
				return nil
			}
		}
		w.Retain()
		deps = append(deps, w)
		return nil
	}
	if err := need(d.writer); err != nil {
		return deps, err
	}
	f.acc = acc
	if acc == Read {
		// Readers of f's queue and completed ones are dropped: f stands
		// for them.
		j := 0
		for i := 0; i < d.n; i++ {
			r := d.readers[i]
			if r.queue == f.queue || r.Done() {
				r.Release()
				continue
			}
			d.readers[j] = r
			j++
		}
		clear(d.readers[j:d.n])
		d.n = j
		if d.n == MaxReaders {
			old := d.readers[0]
			if err := need(old); err != nil {
				return deps, err
			}
			old.Release()
			copy(d.readers[:], d.readers[1:])
			d.n--
		}
		f.Retain()
		d.readers[d.n] = f
		d.n++
		return deps, nil
	}
	for i := 0; i < d.n; i++ {
		if err := need(d.readers[i]); err != nil {
			return deps, err
		}
	}
	for i := 0; i < d.n; i++ {
		d.readers[i].Release()
		d.readers[i] = nil
	}
	d.n = 0
	f.Retain()
	if d.writer != nil {
		d.writer.Release()
	}
	d.writer = f
	return deps, nil
}

// recording makes the recording of one operation's buffers one step with
// respect to every other operation's: an operation then depends only on
// operations recorded before it. Recorded buffer by buffer, two operations
// on two streams that use two buffers in opposite roles (saxpy(a, b) and
// saxpy(b, a)), or one buffer as both input and output, would each wait
// for the other. It is held for a few Mem.Use calls, never while waiting.
var recording sync.Mutex

// useAll records the operation f's uses on s, appending what it must wait
// for to deps.
func useAll(s *Stream, f *Fence, uses []MemUse, deps []*Fence) ([]*Fence, error) {
	recording.Lock()
	defer recording.Unlock()
	var err error
	for _, u := range uses {
		if u.M == nil {
			continue
		}
		if deps, err = u.M.Use(s, f, u.Acc, deps); err != nil {
			return deps, err
		}
	}
	return deps, nil
}

// take empties the dependency state and returns what it held.
func (d *deps) take() (w *Fence, rs [MaxReaders]*Fence, n int) {
	w, rs, n = d.writer, d.readers, d.n
	d.writer, d.readers, d.n = nil, [MaxReaders]*Fence{}, 0
	return
}

// Settle waits on the host for every packet that used m and forgets them;
// it returns the first failure that its stream has not returned already
// (a failure is reported once, by the call that observes it first; the
// memory stays usable). The packets stay m's while it waits, so that a
// stream using m meanwhile still waits for them too. A wait that a host
// function or Go kernel would do for its own queue's work (never done)
// is ErrNotPermitted; op names the call in it.
func (m *Mem) Settle(op string) error {
	var buf [1 + MaxReaders]*Fence
	m.mu.Lock()
	fs := m.deps.held(buf[:0])
	m.mu.Unlock()
	defer func() {
		for _, f := range fs {
			f.Release()
		}
	}()
	var first error
	for _, f := range fs {
		if err := waitsForOwnQueue(op, m, f); err != nil {
			return err
		}
		if err := f.Wait(0); err != nil && first == nil && (f.stream == nil || !f.stream.Reported()) {
			first = err
		}
	}
	m.mu.Lock()
	m.deps.forget(fs)
	m.mu.Unlock()
	return first
}

// held appends the fences d holds to fs, retained.
func (d *deps) held(fs []*Fence) []*Fence {
	if d.writer != nil {
		d.writer.Retain()
		fs = append(fs, d.writer)
	}
	for _, r := range d.readers[:d.n] {
		r.Retain()
		fs = append(fs, r)
	}
	return fs
}

// waitsForOwnQueueLocked is waitsForOwnQueue, without the wait, for every
// fence m holds; m is locked.
func (m *Mem) waitsForOwnQueueLocked(op string) error {
	for i := -1; i < m.deps.n; i++ {
		f := m.deps.writer
		if i >= 0 {
			f = m.deps.readers[i]
		}
		if f == nil || f.Done() {
			continue
		}
		if err := ownQueueErr(op, m, f); err != nil {
			return err
		}
	}
	return nil
}

// forget drops those of fs (completed fences) that d still holds.
func (d *deps) forget(fs []*Fence) {
	for _, f := range fs {
		if d.writer == f {
			d.writer = nil
			f.Release()
		}
	}
	j := 0
	for _, r := range d.readers[:d.n] {
		if slices.Contains(fs, r) {
			r.Release()
			continue
		}
		d.readers[j] = r
		j++
	}
	clear(d.readers[j:d.n])
	d.n = j
}

// waitsForOwnQueue fails a wait for f, a fence of m, that could never end:
// f is not done soon and the calling goroutine runs a packet of f's queue,
// which is the packet that completes f or one before it.
func waitsForOwnQueue(op string, m *Mem, f *Fence) error {
	if _, ok := f.sig.WaitTimed(rocr.CondLT, 1, selfWaitGrace, rocr.WaitActive); ok {
		return nil
	}
	return ownQueueErr(op, m, f)
}

// ownQueueErr is the error for waiting for f, not done, from a packet of
// f's own queue; nil when the caller runs no packet of it.
func ownQueueErr(op string, m *Mem, f *Fence) error {
	q := rocr.RunningQueue()
	if q == nil || q.ID() != f.queue {
		return nil
	}
	return &gpu.Error{Code: gpu.ErrorNotPermitted, Op: op, Msg: fmt.Sprintf("called from a host function or kernel running on queue %d, whose %s on %s it would wait for", f.queue, f.name(), m), Err: rocr.ErrSelfWait}
}

// SetManual makes the program responsible for ordering m's uses across
// streams (on: no barrier is inserted for it).
func (m *Mem) SetManual(on bool) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.deps.manual = on
	m.mu.Unlock()
}

// name is the operation a fence completes, for messages.
func (f *Fence) name() string {
	if f.op == "" {
		return "an operation"
	}
	return f.op
}

// ordered reports whether the stream waited (WaitEvent) for an event
// recorded on w's queue at or after w; s is locked.
func (s *Stream) ordered(w *Fence) bool {
	for _, o := range s.waited[:s.nwaited] {
		if o.queue == w.queue && o.seq >= w.seq {
			return true
		}
	}
	return false
}

// noteWaited records that the stream waits for f and so for everything
// before it on f's queue; s is locked.
func (s *Stream) noteWaited(f *Fence) {
	for i := range s.waited[:s.nwaited] {
		if s.waited[i].queue == f.queue {
			s.waited[i].seq = max(s.waited[i].seq, f.seq)
			return
		}
	}
	if s.nwaited == len(s.waited) {
		copy(s.waited[:], s.waited[1:])
		s.nwaited--
	}
	s.waited[s.nwaited] = waitMark{queue: f.queue, seq: f.seq}
	s.nwaited++
}

// waitMark is how far a stream waited for another queue.
type waitMark struct{ queue, seq uint64 }
