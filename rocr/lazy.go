package rocr

import (
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/spi"
)

// lazyState is what a deferred signal knows of its completer.
type lazyState struct {
	by  atomic.Pointer[spi.CompleterRef]
	seq atomic.Uint64
	// arm counts Stores: a completer holding a signal deferred before the
	// last re-arm must not decrement the new value (Armed).
	arm atomic.Uint64
	// mu orders Store's re-arm against CompleteArmed: without it a
	// completer that checked the arm count just before a Store would
	// decrement the new value.
	mu sync.Mutex
}

// Armed is the signal's arm count: Store increments it. A completer that
// defers s keeps Armed and completes s only if it is unchanged, so that a
// signal re-armed while its completion was still deferred is not
// decremented by the old packet.
func (s *Signal) Armed() uint64 { return s.lazy.arm.Load() }

// Defer records that c completes s once its progress reaches seq. Waiters
// then ask c to flush and poll instead of sleeping.
func (s *Signal) Defer(c *spi.CompleterRef, seq uint64) {
	s.lazy.seq.Store(seq)
	s.lazy.by.Store(c)
	s.markPolled()
}

// CompleteArmed is a deferred completion: unless s was re-armed (Store)
// since the completer read arm (Armed), it forgets the completer, records
// err if not nil and decrements s, all at once with respect to Store. It
// reports whether it completed s.
func (s *Signal) CompleteArmed(arm uint64, err error) bool {
	if s.backend != nil {
		if err != nil {
			s.Fail(err)
		}
		s.backend.Add(-1)
		return true
	}
	s.lazy.mu.Lock()
	if s.lazy.arm.Load() != arm {
		s.lazy.mu.Unlock()
		return false
	}
	s.lazy.by.Store(nil)
	if err != nil {
		s.Fail(err)
	}
	s.hb.Add(1)
	atomic.AddInt64(&s.rec.value, -1)
	s.lazy.mu.Unlock()
	s.notify()
	return true
}

// Deferred returns the completer that completes s and the progress value
// that completes it, or nil. A zero value means the completer has been
// named (Queue.Expect) but has not yet queued the packet's work.
func (s *Signal) Deferred() (spi.Completer, uint64) {
	r := s.lazy.by.Load()
	if r == nil {
		return nil, 0
	}
	return r.Completer(), s.lazy.seq.Load()
}

// Observe lets a deferred signal's completer settle what it knows is done,
// so a poll of the value (Load) sees it; flush also asks it to make the
// signal complete soon, as hipStreamQuery should.
func (s *Signal) Observe(flush bool) {
	c, seq := s.Deferred()
	if c == nil {
		return
	}
	if seq == 0 {
		return
	}
	if flush {
		c.Flush(seq)
	}
	c.Settle()
}

// Await blocks until s is complete where its completer can block for it
// cheaply (a driver's own synchronize of the stream whose last work
// completes s) and reports whether it did; otherwise it returns false at
// once. It never waits for a packet its queue has not yet issued.
func (s *Signal) Await() bool {
	c, seq := s.Deferred()
	return c != nil && seq != 0 && c.Await(seq)
}

// lazyWait is a waiter's view of a deferred signal: a waiter that would
// wait without a deadline lets the completer block for it (Await) as soon
// as the packet's work is queued, since the executor may queue it after
// the wait began; otherwise, the first time it sees the signal deferred it
// asks for a flush, then it settles on every poll.
type lazyWait struct {
	block   bool   // no deadline, active wait: Await may block
	awaited uint64 // the seq Await was asked for
	flushed uint64
}

func (w *lazyWait) poll(s *Signal) {
	c, seq := s.Deferred()
	if c == nil || seq == 0 {
		return
	}
	if w.block && w.awaited != seq {
		w.awaited = seq
		if c.Await(seq) {
			return
		}
	}
	if w.flushed != seq {
		c.Flush(seq)
		w.flushed = seq
	}
	c.Settle()
}

// Expect names the completer of s before its packet is submitted to q, for
// queues whose executor completes lazily: a barrier of another queue that
// meets s before q's executor queued the work then knows whom to wait for.
// A signal of any other queue is left alone. Store clears it.
func (q *Queue) Expect(s *Signal) {
	if q.completer != nil {
		s.lazy.seq.Store(0)
		s.lazy.by.Store(q.completer)
	}
}
