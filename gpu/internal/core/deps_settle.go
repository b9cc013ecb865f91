package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

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
