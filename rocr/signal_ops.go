package rocr

import (
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// markPolled says an agent updates the value in memory without notifying
// the host; waiters then poll instead of sleeping on a wake-up.
func (s *Signal) markPolled() {
	if !s.polled.Swap(true) {
		s.notify() // sleeping waiters switch to polling
	}
}

// Load reads the value.
func (s *Signal) Load(hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Load()
	}
	v := atomic.LoadInt64(&s.rec.value)
	s.hb.Load()
	return v
}

// Store writes the value and clears any recorded failure.
func (s *Signal) Store(v int64, _ hsa.Order) {
	if s.backend != nil {
		s.failure.Store(nil)
		s.backend.Store(v)
		return
	}
	s.lazy.mu.Lock()
	s.failure.Store(nil)
	s.lazy.by.Store(nil) // re-armed: no completer owns it yet
	s.lazy.arm.Add(1)
	s.noTS.Store(false)
	s.hb.Add(1)
	atomic.StoreInt64(&s.rec.value, v)
	s.lazy.mu.Unlock()
	s.notify()
}

// Add adds d and returns the new value.
func (s *Signal) Add(d int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Add(d)
	}
	s.hb.Add(1)
	v := atomic.AddInt64(&s.rec.value, d)
	s.notify()
	return v
}

// Sub subtracts d and returns the new value.
func (s *Signal) Sub(d int64, o hsa.Order) int64 { return s.Add(-d, o) }

// And, Or and Xor apply the bitwise operation and return the new value.
func (s *Signal) And(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v & m }) }

// Or applies v|m.
func (s *Signal) Or(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v | m }) }

// Xor applies v^m.
func (s *Signal) Xor(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v ^ m }) }

func (s *Signal) rmw(f func(int64) int64) int64 {
	for {
		old := s.Load(hsa.Relaxed)
		nv := f(old)
		if s.CAS(old, nv, hsa.AcqRel) == old {
			return nv
		}
	}
}

// Exchange stores v and returns the previous value.
func (s *Signal) Exchange(v int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Exchange(v)
	}
	s.hb.Add(1)
	old := atomic.SwapInt64(&s.rec.value, v)
	s.notify()
	return old
}

// CAS stores new if the value equals old; it returns the value observed.
func (s *Signal) CAS(old, new int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.CAS(old, new)
	}
	s.hb.Add(1)
	for {
		if atomic.CompareAndSwapInt64(&s.rec.value, old, new) {
			s.notify()
			return old
		}
		if v := atomic.LoadInt64(&s.rec.value); v != old {
			return v
		}
	}
}

func (s *Signal) notify() {
	if s.waiters.Load() == 0 {
		return
	}
	s.wakeAll()
}

// wakeAll wakes every sleeper and forgets them: each registers again
// before it checks the value once more.
func (s *Signal) wakeAll() {
	s.mu.Lock()
	for i, w := range s.sleep {
		w.listed = false
		select {
		case w.wake <- struct{}{}:
		default: // already woken
		}
		s.sleep[i] = nil
	}
	s.sleep = s.sleep[:0]
	s.mu.Unlock()
}

// Fail records err as the failure of the work that completes this signal.
func (s *Signal) Fail(err error) {
	if err != nil {
		s.failure.Store(boxErr(err))
		if t := s.failTo.Load(); t != nil {
			t.Fail(err)
		}
	}
}

// boxErr keeps Fail's parameter on the stack on the success path.
func boxErr(err error) *error { return &err }

// Err is the failure recorded for the work that completed this signal.
func (s *Signal) Err() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	if s.backend != nil {
		// A signal of another process that will never complete (its
		// exporter exited) fails its waiters.
		if f, ok := s.backend.(interface{ Failure() error }); ok {
			return f.Failure()
		}
	}
	return nil
}

// SetTimestamps records when the packet completing this signal started and
// ended, in Now's nanoseconds (hsa_amd_profiling_get_dispatch_time).
func (s *Signal) SetTimestamps(start, end uint64) {
	if s.rec != nil {
		atomic.StoreUint64(&s.rec.startTS, start)
		atomic.StoreUint64(&s.rec.endTS, end)
	}
}

// SkipTimestamps says that nobody will read the timestamps of the packet
// that completes the signal next (hipEventDisableTiming), so an agent that
// pays for them may skip them. Store resets it.
func (s *Signal) SkipTimestamps() { s.noTS.Store(true) }

// WantsTimestamps reports whether the packet completing the signal should
// record timestamps.
func (s *Signal) WantsTimestamps() bool { return !s.noTS.Load() }

// Timestamps returns the start and end times of the last packet that
// completed this signal with profiling.
func (s *Signal) Timestamps() (start, end uint64) {
	if tb, ok := s.backend.(interface{ Timestamps() (uint64, uint64) }); ok {
		return tb.Timestamps()
	}
	if s.rec == nil {
		return 0, 0
	}
	return atomic.LoadUint64(&s.rec.startTS), atomic.LoadUint64(&s.rec.endTS)
}
