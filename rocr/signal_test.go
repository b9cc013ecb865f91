package rocr_test

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

var orders = []hsa.Order{hsa.Relaxed, hsa.Acquire, hsa.Release, hsa.AcqRel}
var hints = []hsa.WaitHint{hsa.WaitActive, hsa.WaitBlocked}

func TestSignalOperations(t *testing.T) {
	cputest.Agents(t, 1)
	for _, o := range orders {
		s := newSignal(t, 10)
		expect := func(op string, got, want int64) {
			t.Helper()
			if got != want {
				t.Errorf("order %d: %s = %d, want %d", o, op, got, want)
			}
			if op != "load" && s.Load(o) == 0 && want != 0 {
				t.Errorf("order %d: %s left 0", o, op)
			}
		}
		expect("load", s.Load(o), 10)
		s.Store(12, o)
		expect("store", s.Load(o), 12)
		expect("add", s.Add(5, o), 17)
		expect("sub", s.Sub(20, o), -3)
		expect("after sub", s.Load(o), -3)
		s.Store(0b1100, o)
		expect("and", s.And(0b1010, o), 0b1000)
		expect("or", s.Or(0b0011, o), 0b1011)
		expect("xor", s.Xor(0b1111, o), 0b0100)
		expect("exchange", s.Exchange(99, o), 0b0100)
		expect("after exchange", s.Load(o), 99)
		expect("cas hit", s.CAS(99, 7, o), 99)
		expect("after cas hit", s.Load(o), 7)
		expect("cas miss", s.CAS(99, 1, o), 7)
		expect("after cas miss", s.Load(o), 7)
		s.Store(-1<<62, o)
		expect("store large", s.Load(o), -1<<62)
		if s.Handle() == 0 || s.Addr() == 0 {
			t.Errorf("handle %#x addr %#x", s.Handle(), s.Addr())
		}
	}
	// A store clears the failure recorded by a packet.
	s := newSignal(t, 1)
	s.Fail(errors.New("x"))
	s.Fail(nil)
	if s.Err() == nil {
		t.Fatal("Fail(nil) cleared the failure")
	}
	s.Store(1, hsa.Release)
	if s.Err() != nil {
		t.Errorf("Store kept the failure %v", s.Err())
	}
	if a, b := s.Timestamps(); a != 0 || b != 0 {
		t.Errorf("fresh timestamps %d %d", a, b)
	}
}

func TestSignalWaitConditions(t *testing.T) {
	cputest.Agents(t, 1)
	s := newSignal(t, 5)
	for _, h := range hints {
		for _, tc := range []struct {
			cond      hsa.Condition
			cmp       int64
			holds     bool
			satisfies int64 // a value that makes it hold
		}{
			{hsa.CondEQ, 5, true, 5},
			{hsa.CondEQ, 4, false, 4},
			{hsa.CondNE, 4, true, 4},
			{hsa.CondNE, 5, false, 6},
			{hsa.CondLT, 6, true, 0},
			{hsa.CondLT, 5, false, 4},
			{hsa.CondGTE, 5, true, 5},
			{hsa.CondGTE, 6, false, 6},
		} {
			s.Store(5, hsa.Release)
			start := time.Now()
			const timeout = 3 * time.Millisecond
			v, ok := s.WaitTimed(tc.cond, tc.cmp, timeout, h)
			el := time.Since(start)
			if ok != tc.holds || v != 5 {
				t.Errorf("hint %d cond %d cmp %d: %d, %v", h, tc.cond, tc.cmp, v, ok)
			}
			if !tc.holds && el < timeout {
				t.Errorf("hint %d cond %d: returned after %v, before the %v timeout", h, tc.cond, el, timeout)
			}
			if tc.holds {
				continue
			}
			// A store from another goroutine ends the wait.
			done := make(chan int64)
			go func() { done <- s.Wait(tc.cond, tc.cmp, 0, h) }()
			time.Sleep(time.Duration(rand.IntN(200)) * time.Microsecond)
			s.Store(tc.satisfies, hsa.Release)
			select {
			case v := <-done:
				if v != tc.satisfies {
					t.Errorf("hint %d cond %d: woke with %d, want %d", h, tc.cond, v, tc.satisfies)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("hint %d cond %d: waiter missed the store", h, tc.cond)
			}
		}
	}
}

// watchdog fails the test if done is not closed within d; it reports what
// the stuck signal holds.
func watchdog(t *testing.T, done <-chan struct{}, d time.Duration, state func() string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("lost wake-up: still waiting after %v: %s", d, state())
	}
}

// Two goroutines hand a token back and forth through one signal, each
// waiting forever: a single lost wake-up hangs them.
func TestSignalPingPong(t *testing.T) {
	cputest.Agents(t, 1)
	n := int64(scale(100_000))
	s := newSignal(t, 0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for parity := int64(0); parity < 2; parity++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(parity), 1))
			for v := parity; v < 2*n; v += 2 {
				h := hints[r.IntN(2)]
				if got := s.Wait(hsa.CondEQ, v, 0, h); got != v {
					t.Errorf("woke with %d waiting for %d", got, v)
					return
				}
				if r.IntN(2) == 0 {
					s.Store(v+1, hsa.Release)
				} else {
					s.Add(1, hsa.AcqRel)
				}
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	watchdog(t, done, 60*time.Second, func() string { return "value " + itoa(s.Load(hsa.Relaxed)) })
	if v := s.Load(hsa.Acquire); v != 2*n {
		t.Errorf("final value %d, want %d", v, 2*n)
	}
}

// Many waiters on one signal are all released by one store, whether they
// started waiting before or after it and whichever hint they use.
func TestSignalManyWaitersOneStore(t *testing.T) {
	cputest.Agents(t, 1)
	rounds, waiters := scale(200), 32
	r := rand.New(rand.NewPCG(2, 3))
	for round := 0; round < rounds; round++ {
		s := newSignal(t, 0)
		var wg sync.WaitGroup
		var woke atomic.Int32
		storeAfter := r.IntN(waiters + 1)
		for i := 0; i < waiters; i++ {
			if i == storeAfter {
				s.Store(1, hsa.Release)
			}
			wg.Add(1)
			h := hints[r.IntN(2)]
			cond, cmp := []struct {
				c hsa.Condition
				v int64
			}{{hsa.CondEQ, 1}, {hsa.CondNE, 0}, {hsa.CondGTE, 1}}[i%3].c, int64(1-i%3%2)
			go func() {
				defer wg.Done()
				if v := s.Wait(cond, cmp, 0, h); v == 1 {
					woke.Add(1)
				}
			}()
		}
		if storeAfter == waiters {
			time.Sleep(time.Duration(r.IntN(100)) * time.Microsecond)
			s.Store(1, hsa.Release)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		watchdog(t, done, 30*time.Second, func() string { return "round " + itoa(int64(round)) })
		if woke.Load() != int32(waiters) {
			t.Fatalf("round %d: %d of %d waiters saw the store", round, woke.Load(), waiters)
		}
		s.Destroy()
	}
}

// Producers add to a counter while waiters wait for thresholds on it, with
// random interleavings: every waiter returns once its threshold is passed.
func TestSignalCounterStress(t *testing.T) {
	cputest.Agents(t, 1)
	const producers, waiters = 4, 16
	per := int64(scale(20_000))
	total := producers * per
	s := newSignal(t, 0)
	var wg sync.WaitGroup
	for i := 0; i < waiters; i++ {
		target := rand.Int64N(total + 1)
		h := hints[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v int64
			if i%4 == 3 {
				v = s.Wait(hsa.CondNE, 0, 0, h)
				target = 1
			} else {
				v = s.Wait(hsa.CondGTE, target, 0, h)
			}
			if v < target {
				t.Errorf("waiter woke at %d before its target %d", v, target)
			}
		}()
	}
	for i := 0; i < producers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := int64(0); j < per; j++ {
				switch j % 3 {
				case 0:
					s.Add(1, hsa.Release)
				case 1:
					for old := s.Load(hsa.Relaxed); s.CAS(old, old+1, hsa.AcqRel) != old; old = s.Load(hsa.Relaxed) {
					}
				default:
					s.Sub(-1, hsa.Release)
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	watchdog(t, done, 60*time.Second, func() string { return "value " + itoa(s.Load(hsa.Relaxed)) })
	if v := s.Load(hsa.Acquire); v != total {
		t.Errorf("counter %d, want %d", v, total)
	}
	// LT waits for a decrement.
	lt := make(chan int64)
	go func() { lt <- s.Wait(hsa.CondLT, total, 0, hsa.WaitBlocked) }()
	time.Sleep(time.Millisecond)
	s.Sub(1, hsa.Release)
	select {
	case v := <-lt:
		if v != total-1 {
			t.Errorf("LT woke with %d", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LT waiter missed the decrement")
	}
}

func TestSignalDestroy(t *testing.T) {
	cputest.Agents(t, 1)
	s := newSignal(t, 3)
	h := s.Handle()
	if got, err := rocr.SignalFromHandle(h); err != nil || got != s {
		t.Fatalf("SignalFromHandle of a live signal: %v, %v", got, err)
	}
	// A waiter on a signal being destroyed returns.
	for _, hint := range hints {
		w := newSignal(t, 1)
		done := make(chan struct{})
		go func() {
			w.Wait(hsa.CondEQ, 0, 0, hint)
			close(done)
		}()
		time.Sleep(time.Millisecond)
		if err := w.Destroy(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("hint %d: waiter on a destroyed signal did not return", hint)
		}
	}
	if err := s.Destroy(); err != nil {
		t.Fatal(err)
	}
	if !s.Destroyed() {
		t.Error("Destroyed() is false")
	}
	if err := s.Destroy(); !errors.Is(err, hsa.ErrInvalidSignal) {
		t.Errorf("second Destroy: %v", err)
	}
	if _, err := rocr.SignalFromHandle(h); !errors.Is(err, hsa.ErrInvalidSignal) || hsa.StatusOf(err) != hsa.StatusErrorInvalidSignal {
		t.Errorf("SignalFromHandle of a destroyed signal: %v", err)
	}
	for _, bad := range []uint64{0, 1, h + 8, 0xdead_beef_0000, ^uint64(0)} {
		if _, err := rocr.SignalFromHandle(bad); !errors.Is(err, hsa.ErrInvalidSignal) {
			t.Errorf("SignalFromHandle(%#x): %v", bad, err)
		}
	}
	// A waiter that starts after Destroy returns too.
	done := make(chan struct{})
	go func() { s.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("wait on a destroyed signal hangs")
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
