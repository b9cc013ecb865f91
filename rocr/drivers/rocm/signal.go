package rocm

import (
	"math/bits"
	"sync"
	"time"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// signal is a ROCR hsa_signal_t behind a rocr.Signal: every operation is
// the ROCR call with the same ordering (loads acquire, stores release,
// read-modify-writes both).
type signal struct {
	rt       *runtime
	h        signalH
	ag       *agent // whose dispatch timestamps the signal reports; nil for doorbells
	borrowed bool   // a queue's doorbell: ROCR destroys it with the queue
}

// signals are the ROCR signals the driver created, by handle, so copies
// can tell them from rocr's soft signals, which ROCR cannot wait on.
var signals registry

type registry struct{ m sync.Map }

func (r *registry) add(s *signal)    { r.m.Store(s.h, s) }
func (r *registry) remove(s *signal) { r.m.Delete(s.h) }
func (r *registry) find(h uint64) (*signal, bool) {
	v, ok := r.m.Load(signalH(h))
	if !ok {
		return nil, false
	}
	return v.(*signal), true
}

func (r *registry) clear(rt *runtime) {
	r.m.Range(func(k, v any) bool {
		if v.(*signal).rt == rt {
			r.m.Delete(k)
		}
		return true
	})
}

func (s *signal) Handle() uint64 { return uint64(s.h) }

// After hsa_shut_down the handle is dangling: operations do nothing and
// report 0 instead of touching freed memory.

func (s *signal) Load() int64 {
	if !s.rt.alive.Load() {
		return 0
	}
	return s.rt.api.SignalLoad(s.h)
}

func (s *signal) Store(v int64) {
	if s.rt.alive.Load() {
		s.rt.api.SignalStore(s.h, v)
	}
}

// Add returns the new value, which hsa_signal_add does not: it is a
// compare-and-swap loop, correct against concurrent GPU updates.
func (s *signal) Add(d int64) int64 {
	if !s.rt.alive.Load() {
		return 0
	}
	for old := s.rt.api.SignalLoad(s.h); ; {
		got := s.rt.api.SignalCAS(s.h, old, old+d)
		if got == old {
			return old + d
		}
		old = got
	}
}

func (s *signal) CAS(old, v int64) int64 {
	if !s.rt.alive.Load() {
		return 0
	}
	return s.rt.api.SignalCAS(s.h, old, v)
}

func (s *signal) Exchange(v int64) int64 {
	if !s.rt.alive.Load() {
		return 0
	}
	return s.rt.api.SignalExchange(s.h, v)
}

// Wait is hsa_signal_wait_scacquire, repeated because ROCR may return
// early (the spec allows spurious returns), with the timeout converted to
// timestamp ticks. timeout <= 0 waits until the condition holds.
func (s *signal) Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		if !s.rt.alive.Load() {
			return 0
		}
		ticks := waitForeverTicks
		if timeout > 0 {
			left := time.Until(deadline)
			if left <= 0 {
				return s.rt.api.SignalLoad(s.h)
			}
			ticks = durationTicks(left, s.rt.freq)
		}
		v := s.rt.api.SignalWait(s.h, uint32(cond), cmp, ticks, uint32(hint))
		if cond.Holds(v, cmp) || (timeout > 0 && !time.Now().Before(deadline)) {
			return v
		}
	}
}

// Destroy is hsa_signal_destroy; a borrowed doorbell is left to ROCR.
func (s *signal) Destroy() error {
	signals.remove(s)
	if s.borrowed || !s.rt.alive.Load() {
		return nil
	}
	if st := s.rt.api.SignalDestroy(s.h); st != hsaSuccess {
		return s.rt.fail(st, "signal destroy", "hsa_signal_destroy %#x", uint64(s.h))
	}
	return nil
}

// Timestamps are the start and end of the last packet (or copy) that
// completed the signal on a profiling queue, in nanoseconds:
// hsa_amd_profiling_get_dispatch_time (or _get_async_copy_time) scaled by
// HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY. rocr.Signal.Timestamps finds it.
func (s *signal) Timestamps() (start, end uint64) {
	if s.ag == nil || !s.rt.alive.Load() {
		return 0, 0
	}
	api := s.rt.api
	a, b, st := api.ProfilingGetDispatchTime(s.ag.h, s.h)
	if st != hsaSuccess || (a == 0 && b == 0) {
		if a, b, st = api.ProfilingGetAsyncCopyTime(s.h); st != hsaSuccess {
			return 0, 0
		}
	}
	return ticksNanos(a, s.rt.freq), ticksNanos(b, s.rt.freq)
}

// ticksNanos converts timestamp ticks at freq per second to nanoseconds
// without overflow.
func ticksNanos(t, freq uint64) uint64 {
	if freq == 1e9 {
		return t
	}
	hi, lo := bits.Mul64(t, 1e9)
	if hi >= freq {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, freq)
	return q
}

// durationTicks converts a duration to timestamp ticks, at least 1.
func durationTicks(d time.Duration, freq uint64) uint64 {
	hi, lo := bits.Mul64(uint64(d), freq)
	if hi >= 1e9 {
		return waitForeverTicks - 1
	}
	q, _ := bits.Div64(hi, lo, 1e9)
	return max(q, 1)
}
