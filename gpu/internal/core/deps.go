package core

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
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

// depState is the dependency state of a buffer, or of a byte range of
// one: its last writer and the readers since, each the fence of one
// packet, retained.
type depState struct {
	writer  *Fence
	readers [MaxReaders]*Fence
	n       int
}

// deps is a buffer's dependency state, guarded by Mem.mu. While every use
// named the whole buffer, it is one depState. Once a use names a byte
// range (a view, Mem.View), parts holds the state by range: sorted,
// disjoint and covering the buffer. A use of the whole buffer that writes
// makes it one state again.
type deps struct {
	depState
	parts  []part
	manual bool // the program orders this buffer's uses itself
	// loose holds, for each other queue, the latest packet that used the
	// buffer and that a use ordered by the program (Manual, Check)
	// replaced while it ran: no packet waited for it, so Free, Settle and
	// the backstop must. One per queue: a queue's packets complete in
	// order.
	loose []*Fence
}

// keepLoose adds to d.loose the packets of other queues than f's that
// d records and that have not completed, before a use ordered by the
// program replaces them.
func (d *deps) keepLoose(f *Fence) {
	j := 0
	for _, x := range d.loose {
		if x.Done() {
			x.Release()
			continue
		}
		d.loose[j] = x
		j++
	}
	clear(d.loose[j:])
	d.loose = d.loose[:j]
	add := func(w *Fence) {
		if w == nil || w.queue == f.queue || w.Done() {
			return
		}
		for i, x := range d.loose {
			if x.queue == w.queue {
				if x.seq < w.seq {
					w.Retain()
					x.Release()
					d.loose[i] = w
				}
				return
			}
		}
		w.Retain()
		d.loose = append(d.loose, w)
	}
	d.each(func(st *depState) {
		add(st.writer)
		for _, r := range st.readers[:st.n] {
			add(r)
		}
	})
}

// part is the state of bytes [lo, hi) of a buffer.
type part struct {
	lo, hi int
	depState
}

// maxParts bounds the ranges a buffer tracks. A use that would leave more
// waits for every use recorded, and the buffer is one state again, with
// the use standing for all before it.
const maxParts = 256

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

// user is one Mem.Use in progress: what it records, and the fences it
// must wait for so far.
type user struct {
	s     *Stream
	f     *Fence
	acc   Access
	order Order
	m     *Mem // as named, for messages: the view where it was one
}

// need notes that u's packet must wait for w: nothing for a fence of its
// own queue, a completed one, or one the stream already waits for (a
// barrier earlier in its queue, of an event wait or an automatic
// dependency, waited for w or later work of w's queue); under Manual (or a manual buffer) only
// the sanitizer's check, under Check the report of a dependency the
// stream did not order with an event.
func (u *user) need(w *Fence, deps []*Fence) ([]*Fence, error) {
	f := u.f
	if w == nil || w.queue == f.queue || w.Done() || u.s != nil && u.s.ordered(w) {
		return deps, nil
	}
	switch u.order {
	case Manual:
		if !rocr.Sanitizing() || u.s.ordered(w) {
			return deps, nil
		}
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_SANITIZE)",
			f.name(), f.queue, u.acc, u.m, w.name(), w.queue, w.acc)
	case Check:
		if u.s.ordered(w) {
			return deps, nil
		}
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s on stream %d %s %s, which %s on stream %d %s, with no event between them (HIPGO_CHECK_DEPS)",
			f.name(), f.queue, u.acc, u.m, w.name(), w.queue, w.acc)
	}
	for _, d := range deps {
		if d == w { // buffers last used by one packet: wait once
			return deps, nil
		}
	}
	w.Retain()
	return append(deps, w), nil
}

// use records u in st: a read waits for the last writer and joins the
// readers; a write waits for the writer and the readers and becomes the
// writer.
func (st *depState) use(u *user, deps []*Fence) ([]*Fence, error) {
	var err error
	if deps, err = u.need(st.writer, deps); err != nil {
		return deps, err
	}
	if st.writer != nil && st.writer.Done() {
		// Nothing waits for completed work: forgetting it lets parts
		// whose work completed merge again.
		st.writer.Release()
		st.writer = nil
	}
	f := u.f
	f.acc = u.acc
	if u.acc == Read {
		// Readers of f's queue and completed ones are dropped: f stands
		// for them.
		j := 0
		for i := 0; i < st.n; i++ {
			r := st.readers[i]
			if r.queue == f.queue || r.Done() {
				r.Release()
				continue
			}
			st.readers[j] = r
			j++
		}
		clear(st.readers[j:st.n])
		st.n = j
		if st.n == MaxReaders {
			old := st.readers[0]
			if deps, err = u.need(old, deps); err != nil {
				return deps, err
			}
			old.Release()
			copy(st.readers[:], st.readers[1:])
			st.n--
		}
		f.Retain()
		st.readers[st.n] = f
		st.n++
		return deps, nil
	}
	for i := 0; i < st.n; i++ {
		if deps, err = u.need(st.readers[i], deps); err != nil {
			return deps, err
		}
	}
	st.writeBy(f)
	return deps, nil
}

// writeBy makes f the state's writer, with no readers, f retained.
func (st *depState) writeBy(f *Fence) {
	for i := 0; i < st.n; i++ {
		st.readers[i].Release()
		st.readers[i] = nil
	}
	st.n = 0
	f.Retain()
	if st.writer != nil {
		st.writer.Release()
	}
	st.writer = f
}

// clone is a copy of st holding its own references.
func (st *depState) clone() depState {
	c := *st
	if c.writer != nil {
		c.writer.Retain()
	}
	for _, r := range c.readers[:c.n] {
		r.Retain()
	}
	return c
}

// release drops st's references.
func (st *depState) release() {
	if st.writer != nil {
		st.writer.Release()
	}
	for _, r := range st.readers[:st.n] {
		r.Release()
	}
	*st = depState{}
}

func (st *depState) same(o *depState) bool { return *st == *o }

// Use records that the packet whose fence is f uses m with acc, and
// appends to deps the fences f must wait for: the last writer for a read;
// the last writer and the readers since for a write; fences of f's own
// queue and completed ones are skipped. A view (Mem.View) is a use of
// its bytes of the buffer it views: uses of disjoint ranges do not wait
// for each other. It fails, recording nothing, when m was freed: the
// check and the record are one step with respect to Free. Under Check, a
// dependency the stream did not order is an error naming both
// operations; under Manual (or a manual buffer) none is returned.
func (m *Mem) Use(s *Stream, f *Fence, acc Access, deps []*Fence) ([]*Fence, error) {
	// An operation's buffers are recorded under recording (see useAll and
	// Launch.Use), so it never depends on one recorded after it.
	r, lo := m, 0
	if m.parent != nil {
		r, lo = m.parent, m.off
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.freed.Load() {
		return deps, gpu.Errorf(gpu.ErrInvalidValue, f.op, "%s was freed", m)
	}
	d := r.depsOf()
	u := user{s: s, f: f, acc: acc, order: s.order, m: m}
	if d.manual && u.order == Auto {
		u.order = Manual
	}
	if u.order != Auto {
		d.keepLoose(f)
	}
	size, whole := r.Size(), m.Size()
	if d.parts == nil && lo == 0 && whole == size {
		return d.use(&u, deps)
	}
	return d.useRange(&u, deps, lo, lo+whole, size)
}

// useRange records u's use of bytes [lo, hi) of a buffer of size bytes.
func (d *deps) useRange(u *user, deps []*Fence, lo, hi, size int) ([]*Fence, error) {
	if hi <= lo { // an empty view touches no bytes
		return deps, nil
	}
	if d.parts == nil {
		d.parts = append(d.parts, part{lo: 0, hi: size, depState: d.depState})
		d.depState = depState{}
	}
	i, j := d.split(lo), d.split(hi)
	var err error
	for k := i; k < j; k++ {
		if deps, err = d.parts[k].use(u, deps); err != nil {
			return deps, err
		}
	}
	d.coalesce(max(i-1, 0), min(j+1, len(d.parts)))
	if len(d.parts) > maxParts {
		return d.collapse(u, deps)
	}
	if len(d.parts) == 1 {
		d.depState, d.parts = d.parts[0].depState, nil
	}
	return deps, nil
}

// split makes a part start at at, cloning the state of the part it cut,
// and returns that part's index (len(parts) for the end).
func (d *deps) split(at int) int {
	// The first part that ends after at holds it.
	k, n := 0, len(d.parts)
	for k < n {
		h := int(uint(k+n) >> 1)
		if d.parts[h].hi <= at {
			k = h + 1
		} else {
			n = h
		}
	}
	if k == len(d.parts) {
		return k
	}
	p := &d.parts[k]
	if p.lo == at {
		return k
	}
	q := part{lo: at, hi: p.hi, depState: p.clone()}
	p.hi = at
	d.parts = slices.Insert(d.parts, k+1, q)
	return k + 1
}

// coalesce merges neighbours with the same state among parts [i, j).
func (d *deps) coalesce(i, j int) {
	for k := i; k+1 < j && k+1 < len(d.parts); {
		a, b := &d.parts[k], &d.parts[k+1]
		if !a.same(&b.depState) {
			k++
			continue
		}
		a.hi = b.hi
		b.release()
		d.parts = slices.Delete(d.parts, k+1, k+2)
		j--
	}
}

// collapse makes the buffer one state again, past maxParts: u waits for
// every use recorded, and stands for them as the buffer's writer (for a
// read too: a later use that waits for u waits for all of them).
func (d *deps) collapse(u *user, deps []*Fence) ([]*Fence, error) {
	var err error
	for k := range d.parts {
		p := &d.parts[k]
		// need skips u's own fence, as it skips every fence of its queue.
		if deps, err = u.need(p.writer, deps); err != nil {
			return deps, err
		}
		for _, r := range p.readers[:p.n] {
			if deps, err = u.need(r, deps); err != nil {
				return deps, err
			}
		}
	}
	for k := range d.parts {
		d.parts[k].release()
	}
	d.parts = nil
	d.depState = depState{}
	d.writeBy(u.f)
	return deps, nil
}

// each calls fn for every state d holds.
func (d *deps) each(fn func(*depState)) {
	if d.parts == nil {
		fn(&d.depState)
		return
	}
	for k := range d.parts {
		fn(&d.parts[k].depState)
	}
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

// take empties the dependency state and appends what it held to fs.
func (d *deps) take(fs []*Fence) []*Fence {
	d.each(func(st *depState) {
		if st.writer != nil {
			fs = append(fs, st.writer)
		}
		fs = append(fs, st.readers[:st.n]...)
		*st = depState{}
	})
	d.depState, d.parts = depState{}, nil
	fs = append(fs, d.loose...)
	d.loose = nil
	return fs
}

// Settle waits on the host for every packet that used m and forgets them;
// it returns the first failure that its stream has not returned already
// (a failure is reported once, by the call that observes it first; the
// memory stays usable). The packets stay m's while it waits, so that a
// stream using m meanwhile still waits for them too. A wait that a host
// function or Go kernel would do for its own queue's work (never done)
// is ErrNotPermitted; op names the call in it.
func (m *Mem) Settle(op string) error { return m.SettleContext(context.Background(), op) }

// SettleContext is Settle that gives up when ctx is done before the
// packets are: it returns an error wrapping gpu.ErrNotReady and ctx's
// error, and m keeps every packet (a later Settle, Free or stream still
// waits for them). A context that can never be done costs nothing.
func (m *Mem) SettleContext(ctx context.Context, op string) error {
	if m.parent != nil {
		m = m.parent // a view's work is its buffer's
	}
	var buf [1 + MaxReaders]*Fence
	m.mu.Lock()
	fs := m.depsOf().held(buf[:0])
	m.mu.Unlock()
	defer releaseAll(fs)
	first, err := waitFences(ctx, op, m, fs)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.depsOf().forget(fs)
	m.mu.Unlock()
	return first
}

// waitFences waits for fs, fences of m's work. first is the first
// failure of that work that its stream has not returned already; err,
// when the wait did not end, is ctx's (see SettleContext) or
// ErrNotPermitted for a wait for the caller's own queue (see Settle).
func waitFences(ctx context.Context, op string, m *Mem, fs []*Fence) (first, err error) {
	// Every fence of the caller's own queue is checked before any wait:
	// a fence of another queue may wait for one of them.
	for _, f := range fs {
		if !f.Done() && ownQueueErr(op, m, f) != nil { // Done first: RunningQueue costs
			if err := waitsForOwnQueue(op, m, f); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range fs {
		if ctx.Done() != nil {
			if err := WaitContext(ctx, op, f, hsa.WaitActive); err != nil {
				return nil, err
			}
		}
		if f.Wait(0) != nil && first == nil {
			first = unreported(f)
		}
	}
	return first, nil
}

// unreported is the failure of f's completed packet unless f's stream
// has returned it to the program already (a fence of no stream, the
// synchronous engine's, has no one else to report it).
func unreported(f *Fence) error {
	if f.stream != nil && f.stream.isReported() {
		return nil
	}
	return f.Err()
}

func releaseAll(fs []*Fence) {
	for _, f := range fs {
		f.Release()
	}
}

// useSync records a synchronous operation (a copy or fill that the
// engine runs) whose host fence (NewHostFence) is f, using each of uses,
// as a stream operation is recorded: stream work recorded after it waits
// for f. A buffer's manual dependencies (SetManual) do not apply:
// synchronous operations always wait for its work.
//
// It records nothing, and says why, when a buffer was freed (err), when
// a buffer holds unfinished work of the queue the caller runs a packet
// of (a host function: own is that work's fence, retained, for the
// caller to wait for a moment before it refuses, as waitsForOwnQueue
// does), or, unless force is set, when a buffer holds any unfinished
// work, or completed work whose failure nobody has reported (pending:
// the caller waits for it, as Settle does, which reports that failure,
// and tries again). Forced, it appends to fs, retained, the unfinished work the
// operation must wait for, as a stream operation's would be.
func useSync(op string, f *Fence, uses []MemUse, fs []*Fence, force bool) (_ []*Fence, own *Fence, pending bool, _ error) {
	recording.Lock()
	defer recording.Unlock()
	// Every buffer is checked before any is recorded: a refusal leaves
	// every buffer as it was.
	for _, mu := range uses {
		if mu.M == nil {
			continue
		}
		m, r := mu.M, mu.M.root()
		r.mu.Lock()
		if r.freed.Load() {
			r.mu.Unlock()
			return fs, nil, false, gpu.Errorf(gpu.ErrInvalidValue, op, "%s was freed", m)
		}
		d := r.depsOf()
		d.each(func(st *depState) {
			for i := -1; i < st.n && own == nil; i++ {
				w := st.writer
				if i >= 0 {
					w = st.readers[i]
				}
				if w == nil {
					continue
				}
				if w.Done() {
					// Work that failed with nobody told yet is the
					// operation's to report, as if still pending:
					// the caller's Settle returns the failure once.
					pending = pending || unreported(w) != nil
					continue
				}
				pending = true
				if ownQueueErr(op, m, w) != nil {
					w.Retain()
					own = w
				}
			}
		})
		for _, w := range d.loose {
			pending = pending || !w.Done()
		}
		r.mu.Unlock()
		if own != nil {
			return fs, own, true, nil
		}
	}
	if pending && !force {
		return fs, nil, true, nil
	}
	for _, mu := range uses {
		if mu.M == nil {
			continue
		}
		m, r, lo := mu.M, mu.M.root(), mu.M.off
		if m.parent == nil {
			lo = 0
		}
		r.mu.Lock()
		d := r.depsOf()
		u := user{f: f, acc: mu.Acc, order: Auto, m: m}
		var err error
		size, whole := r.Size(), m.Size()
		if d.parts == nil && lo == 0 && whole == size {
			fs, err = d.use(&u, fs)
		} else {
			fs, err = d.useRange(&u, fs, lo, lo+whole, size)
		}
		if err == nil {
			for _, w := range d.loose {
				if !w.Done() && !slices.Contains(fs, w) {
					w.Retain()
					fs = append(fs, w)
				}
			}
		}
		r.mu.Unlock()
		if err != nil { // Auto reports nothing; kept for the signature
			return fs, nil, false, err
		}
	}
	return fs, nil, false, nil
}

// held appends the fences d holds to fs, retained, each once.
func (d *deps) held(fs []*Fence) []*Fence {
	add := func(f *Fence) {
		if f != nil && !slices.Contains(fs, f) {
			f.Retain()
			fs = append(fs, f)
		}
	}
	d.each(func(st *depState) {
		add(st.writer)
		for _, r := range st.readers[:st.n] {
			add(r)
		}
	})
	for _, f := range d.loose {
		add(f)
	}
	return fs
}

// waitsForOwnQueueLocked is waitsForOwnQueue, without the wait, for every
// fence m holds; m is locked.
func (m *Mem) waitsForOwnQueueLocked(op string) error {
	var err error
	m.depsOf().each(func(st *depState) {
		for i := -1; i < st.n && err == nil; i++ {
			f := st.writer
			if i >= 0 {
				f = st.readers[i]
			}
			if f == nil || f.Done() {
				continue
			}
			err = ownQueueErr(op, m, f)
		}
	})
	return err
}

// forget drops those of fs (completed fences) that d still holds.
func (d *deps) forget(fs []*Fence) {
	d.each(func(st *depState) {
		if st.writer != nil && slices.Contains(fs, st.writer) {
			st.writer.Release()
			st.writer = nil
		}
		j := 0
		for _, r := range st.readers[:st.n] {
			if slices.Contains(fs, r) {
				r.Release()
				continue
			}
			st.readers[j] = r
			j++
		}
		clear(st.readers[j:st.n])
		st.n = j
	})
	if d.parts != nil {
		d.coalesce(0, len(d.parts))
		if len(d.parts) == 1 {
			d.depState, d.parts = d.parts[0].depState, nil
		}
	}
}

// waitsForOwnQueue fails a wait for f, a fence of m, that could never end:
// f is not done soon and the calling goroutine runs a packet of f's queue,
// which is the packet that completes f or one before it.
func waitsForOwnQueue(op string, m *Mem, f *Fence) error {
	if _, ok := f.sig.WaitTimed(hsa.CondLT, 1, selfWaitGrace, hsa.WaitActive); ok {
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
	return &gpu.Error{Code: gpu.ErrNotPermitted, Op: op, Msg: fmt.Sprintf("called from a host function or kernel running on queue %d, whose %s on %s it would wait for", f.queue, f.name(), m), Err: rocr.ErrSelfWait}
}

// depsOf is m's dependency state, made for a Mem that was not allocated
// (a zero one, whose uses fail later); m is locked.
func (m *Mem) depsOf() *deps {
	if m.deps == nil {
		m.deps = &deps{}
	}
	return m.deps
}

// SetManual makes the program responsible for ordering m's uses across
// streams (on: no barrier is inserted for it).
func (m *Mem) SetManual(on bool) {
	if m == nil {
		return
	}
	if m.parent != nil {
		m = m.parent
	}
	m.mu.Lock()
	m.depsOf().manual = on
	m.mu.Unlock()
}

// name is the operation a fence completes, for messages.
func (f *Fence) name() string {
	if f.op == "" {
		return "an operation"
	}
	return f.op
}

// ordered reports whether the stream waited (WaitEvent, or a barrier of
// an automatic dependency) for a fence of w's queue at or after w; s is
// locked. Only a stream's fences are numbered in their queue (newFence):
// another (the copy engine's, a host operation's) is never ordered.
func (s *Stream) ordered(w *Fence) bool {
	if w.stream == nil {
		return false
	}
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
	if f.stream == nil {
		return // not numbered in its queue: see ordered
	}
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
