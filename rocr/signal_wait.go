package rocr

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// A sleeper is one waiter's wake-up: pooled, so a wait that sleeps
// allocates nothing (a channel closed and made again on every store was an
// allocation in every long Synchronize).
type sleeper struct {
	wake   chan struct{} // one slot: a wake-up is never lost, and never blocks the waker
	listed bool          // in its signal's sleep list; under the signal's mu
	timer  *time.Timer   // a polling wait's sleep; made on first use, stopped between uses
}

// sleepFor waits for a wake-up or d, whichever comes first. Since Go 1.23
// a stopped timer's channel holds no stale value, so Reset needs no drain.
func (w *sleeper) sleepFor(d time.Duration) {
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.wake:
	case <-w.timer.C:
	}
	w.timer.Stop()
}

var sleepers = sync.Pool{New: func() any { return &sleeper{wake: make(chan struct{}, 1)} }}

// listen puts w in s's sleep list, where a store finds it, unless it is
// there already.
func (s *Signal) listen(w *sleeper) {
	s.mu.Lock()
	if !w.listed {
		w.listed = true
		s.sleep = append(s.sleep, w)
	}
	s.mu.Unlock()
}

// unlisten takes w out of s's sleep list and empties its wake-up, so the
// pool gets it back clean.
func (s *Signal) unlisten(w *sleeper) {
	s.mu.Lock()
	if w.listed {
		w.listed = false
		for i, o := range s.sleep {
			if o == w {
				last := len(s.sleep) - 1
				s.sleep[i] = s.sleep[last]
				s.sleep[last] = nil
				s.sleep = s.sleep[:last]
				break
			}
		}
	}
	s.mu.Unlock()
	select {
	case <-w.wake:
	default:
	}
}

// spin budgets before a waiter sleeps.
const (
	activeSpin  = 50 * time.Microsecond
	blockedSpin = 2 * time.Microsecond
	polledSpin  = time.Millisecond
	// maxPoll bounds the sleep between polls of a signal a GPU completes
	// without waking anyone: the most a waiter sees its completion late.
	maxPoll = 50 * time.Microsecond
)

// Wait blocks until the condition holds or the timeout passes (timeout <= 0
// waits forever) and returns the last value observed, as
// hsa_signal_wait_scacquire does. It never misses a store: a waiter
// registers before its final check, and every store with waiters wakes them.
func (s *Signal) Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	return s.wait(cond, cmp, timeout, hint, true)
}

// waitNoYield is Wait whose spin never yields the processor: for
// goroutines locked to an OS thread (a GPU driver's queue processor), where
// runtime.Gosched costs a thread switch.
func (s *Signal) waitNoYield(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	return s.wait(cond, cmp, timeout, hint, false)
}

func (s *Signal) wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint, yield bool) int64 {
	if s.backend != nil {
		return s.backend.Wait(cond, cmp, timeout, hint)
	}
	v := atomic.LoadInt64(&s.rec.value)
	if cond.Holds(v, cmp) {
		s.hb.Load()
		return v
	}
	defer s.hb.Load()
	lazy := lazyWait{block: timeout <= 0 && hint == hsa.WaitActive}
	lazy.poll(s)
	start := time.Now()
	spin := blockedSpin
	if hint == hsa.WaitActive {
		spin = activeSpin
		if s.polled.Load() {
			// A GPU completes this signal without waking anyone: spinning
			// is the fast way to see it, as CUDA's spin-wait sync does.
			spin = polledSpin
		}
	}
	if timeout > 0 && spin > timeout {
		spin = timeout
	}
	for i := 0; ; i++ {
		v = atomic.LoadInt64(&s.rec.value)
		if cond.Holds(v, cmp) {
			return v
		}
		if i&15 == 15 {
			lazy.poll(s)
		}
		if i&63 == 63 {
			if time.Since(start) >= spin {
				break
			}
			if yield {
				runtime.Gosched()
			}
		}
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = start.Add(timeout)
	}
	s.waiters.Add(1)
	defer s.waiters.Add(-1)
	w := sleepers.Get().(*sleeper)
	defer func() {
		s.unlisten(w)
		sleepers.Put(w)
	}()
	poll := 20 * time.Microsecond
	for {
		// Listed before the value is read: a store after the read wakes w.
		s.listen(w)
		lazy.poll(s)
		v = atomic.LoadInt64(&s.rec.value)
		if cond.Holds(v, cmp) {
			return v
		}
		var wait time.Duration = -1
		if timeout > 0 {
			wait = time.Until(deadline)
			if wait <= 0 {
				return v
			}
		}
		if s.polled.Load() || s.destroyed.Load() {
			if wait < 0 || poll < wait {
				wait = poll
			}
			if poll < maxPoll {
				poll += poll / 2
			}
		}
		if wait < 0 {
			// markPolled wakes this wait too, so a signal that a GPU starts
			// completing while we sleep is then polled.
			<-w.wake
			continue
		}
		w.sleepFor(wait)
		if s.destroyed.Load() {
			return atomic.LoadInt64(&s.rec.value)
		}
	}
}

// WaitTimed is Wait that reports whether the condition held.
func (s *Signal) WaitTimed(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) (int64, bool) {
	v := s.Wait(cond, cmp, timeout, hint)
	return v, cond.Holds(v, cmp)
}
