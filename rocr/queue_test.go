package rocr_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/spi"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
)

func TestQueueCreateErrors(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	for _, size := range []uint32{0, 3, 6, 100, 1, 1 << 30} {
		if q, err := a.CreateQueue(size, hsa.QueueMulti, nil); !errors.Is(err, hsa.ErrInvalidArgument) {
			t.Errorf("size %d: %v", size, err)
			if q != nil {
				q.Destroy()
			}
		}
	}
	if _, err := a.CreateQueue(16, hsa.QueueType(7), nil); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("queue type 7: %v", err)
	}
	q, err := a.CreateQueue(16, hsa.QueueSingle, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Size() != 16 || q.Type() != hsa.QueueSingle || q.Agent() != a || q.Doorbell() == nil {
		t.Errorf("queue: size %d type %d", q.Size(), q.Type())
	}
	sig := newSignal(t, 1)
	launch(t, q, kernelTag, &tagArgs{1}, 1, 1, sig)
	wait(t, sig, 10*time.Second)
	takeTags()
	if err := q.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := q.Destroy(); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("second Destroy: %v", err)
	}
	if _, err := q.Reserve(); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("Reserve after Destroy: %v", err)
	}
	var p aql.BarrierAnd
	if _, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeBarrierAnd, true, 0, 0)); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("Submit after Destroy: %v", err)
	}
}

// Thousands of packets through a ring of 2 and 4 slots: the indexes wrap
// hundreds of times and every packet runs once, in order.
func TestQueueWraparound(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	n := scale(5000)
	for _, size := range []uint32{2, 4} {
		q := newQueue(t, a, size, nil)
		sig := newSignal(t, int64(n))
		for i := 0; i < n; i++ {
			launch(t, q, kernelTag, &tagArgs{uint64(i)}, 1, 1, sig)
			if i%7 == 0 { // a barrier now and then, completing its own signal
				s2 := newSignal(t, 1)
				barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{}, s2)
			}
		}
		wait(t, sig, 30*time.Second)
		tags := takeTags()
		if len(tags) != n {
			t.Fatalf("size %d: %d packets ran, want %d", size, len(tags), n)
		}
		for i, tag := range tags {
			if tag != uint64(i) {
				t.Fatalf("size %d: packet %d ran as number %d", size, tag, i)
			}
		}
		w := q.LoadWriteIndex()
		deadline := time.Now().Add(10 * time.Second)
		for q.LoadReadIndex() != w && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
		if r := q.LoadReadIndex(); r != w || w != uint64(n+(n+6)/7) {
			t.Errorf("size %d: read %d write %d", size, r, w)
		}
		if q.Err() != nil {
			t.Error(q.Err())
		}
	}
}

// A full ring holds producers back until the processor frees a slot.
func TestQueueBackPressure(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 2, nil)
	release, running := gate(100)
	defer release()
	sig := newSignal(t, 3)
	launch(t, q, kernelGate, &tagArgs{100}, 1, 1, sig)
	<-running
	launch(t, q, kernelTag, &tagArgs{1}, 1, 1, sig) // the ring is now full
	reserved := make(chan uint64)
	go func() {
		id, err := q.Reserve()
		if err != nil {
			t.Error(err)
		}
		reserved <- id
	}()
	select {
	case id := <-reserved:
		t.Fatalf("Reserve returned slot %d of a full ring", id)
	case <-time.After(20 * time.Millisecond):
	}
	if w, r := q.LoadWriteIndex(), q.LoadReadIndex(); w != 3 || r != 0 {
		t.Errorf("write %d read %d while full", w, r)
	}
	release()
	id := <-reserved
	if id != 2 {
		t.Errorf("reserved %d, want 2", id)
	}
	writeDispatch(q, id, kernelTag, &tagArgs{2}, 1, 1, sig)
	wait(t, sig, 10*time.Second)
	if tags := takeTags(); fmt.Sprint(tags) != "[1 2]" {
		t.Errorf("ran %v", tags)
	}
}

// Goroutines submitting to one queue at once: every packet runs exactly once.
func TestQueueConcurrentProducers(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	for _, typ := range []hsa.QueueType{hsa.QueueMulti} {
		q, err := a.CreateQueue(16, typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		const producers = 6
		per := scale(3000)
		counts = make([]int32, producers*per)
		sig := newSignal(t, int64(producers*per))
		var wg sync.WaitGroup
		for p := 0; p < producers; p++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < per; i++ {
					launch(t, q, kernelCount, &tagArgs{uint64(p*per + i)}, 1, 1, sig)
				}
			}()
		}
		wg.Wait()
		wait(t, sig, 60*time.Second)
		countsMu.Lock()
		for tag, c := range counts {
			if c != 1 {
				t.Errorf("packet %d ran %d times", tag, c)
			}
		}
		countsMu.Unlock()
		if err := q.Destroy(); err != nil {
			t.Fatal(err)
		}
	}
}

// A packet with the barrier bit starts after every earlier one completed.
func TestQueueBarrierBitInOrder(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 8, nil)
	release, running := gate(200)
	s1, s2 := newSignal(t, 1), newSignal(t, 1)
	launch(t, q, kernelGate, &tagArgs{200}, 1, 1, s1)
	launch(t, q, kernelTag, &tagArgs{7}, 1, 1, s2)
	<-running
	time.Sleep(5 * time.Millisecond)
	if v := s2.Load(hsa.Acquire); v != 1 || len(takeTags()) != 0 {
		t.Fatal("the second packet ran before the first completed")
	}
	release()
	wait(t, s2, 10*time.Second)
	if s1.Load(hsa.Acquire) != 0 {
		t.Error("second completed, first not")
	}
	takeTags()
}

// Queue B's BARRIER_AND waits for a signal that queue A completes; zero
// dependency handles count as satisfied.
func TestBarrierAndAcrossQueues(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	qa, qb := newQueue(t, a, 8, nil), newQueue(t, a, 8, nil)
	release, running := gate(300)
	dep := newSignal(t, 1)
	launch(t, qa, kernelGate, &tagArgs{300}, 1, 1, dep)
	<-running
	bsig, ksig := newSignal(t, 1), newSignal(t, 1)
	barrier(t, qb, aql.TypeBarrierAnd, [5]*rocr.Signal{nil, dep, nil}, bsig)
	launch(t, qb, kernelTag, &tagArgs{42}, 1, 1, ksig)
	if _, ok := bsig.WaitTimed(hsa.CondEQ, 0, 10*time.Millisecond, hsa.WaitBlocked); ok {
		t.Fatal("BARRIER_AND completed before its dependency")
	}
	if len(takeTags()) != 0 {
		t.Fatal("a packet after the barrier ran early")
	}
	release()
	wait(t, ksig, 10*time.Second)
	if bsig.Load(hsa.Acquire) != 0 || bsig.Err() != nil {
		t.Errorf("barrier signal %d err %v", bsig.Load(hsa.Acquire), bsig.Err())
	}
	if tags := takeTags(); fmt.Sprint(tags) != "[42]" {
		t.Errorf("ran %v", tags)
	}
	// All-zero dependencies: satisfied at once.
	z := newSignal(t, 1)
	barrier(t, qb, aql.TypeBarrierAnd, [5]*rocr.Signal{}, z)
	wait(t, z, 10*time.Second)
	// Five dependencies, completed in reverse order from another goroutine.
	var deps [5]*rocr.Signal
	for i := range deps {
		deps[i] = newSignal(t, 1)
	}
	all := newSignal(t, 1)
	barrier(t, qb, aql.TypeBarrierAnd, deps, all)
	for i := 4; i >= 0; i-- {
		if _, ok := all.WaitTimed(hsa.CondEQ, 0, time.Millisecond, hsa.WaitActive); ok {
			t.Fatalf("completed with %d dependencies pending", i+1)
		}
		deps[i].Store(0, hsa.Release)
	}
	wait(t, all, 10*time.Second)
}

// A dependency whose producer failed fails the barrier and its queue.
func TestBarrierAndFailedDependency(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	qa, qb := newQueue(t, a, 8, nil), newQueue(t, a, 8, nil)
	dep, bsig := newSignal(t, 1), newSignal(t, 1)
	barrier(t, qb, aql.TypeBarrierAnd, [5]*rocr.Signal{dep}, bsig)
	launch(t, qa, kernelPanic, &panicArgs{0}, 1, 1, dep)
	wait(t, bsig, 10*time.Second)
	if err := bsig.Err(); !errors.Is(err, hsa.ErrKernelFailed) || !strings.Contains(err.Error(), "rocr_test_panic") {
		t.Errorf("barrier on a failed dependency: %v", err)
	}
	if qb.Err() == nil {
		t.Error("queue B did not fail")
	}
}

func TestBarrierOr(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 8, nil)
	s1, s2 := newSignal(t, 1), newSignal(t, 1)
	done := newSignal(t, 1)
	barrier(t, q, aql.TypeBarrierOr, [5]*rocr.Signal{nil, s1, nil, s2}, done)
	if _, ok := done.WaitTimed(hsa.CondEQ, 0, 10*time.Millisecond, hsa.WaitBlocked); ok {
		t.Fatal("BARRIER_OR completed with no dependency satisfied (zero handles must not satisfy it)")
	}
	s2.Store(0, hsa.Release)
	wait(t, done, 10*time.Second)
	if done.Err() != nil || q.Err() != nil {
		t.Fatal(done.Err(), q.Err())
	}
	// All-zero BARRIER_OR: an invalid packet, not a hang.
	var errs []error
	var mu sync.Mutex
	q2 := newQueue(t, a, 8, func(_ *rocr.Queue, err error) { mu.Lock(); errs = append(errs, err); mu.Unlock() })
	z := newSignal(t, 1)
	barrier(t, q2, aql.TypeBarrierOr, [5]*rocr.Signal{}, z)
	wait(t, z, 10*time.Second)
	if err := z.Err(); !errors.Is(err, hsa.ErrInvalidPacket) || hsa.StatusOf(err) != hsa.StatusErrorInvalidPacketFormat {
		t.Errorf("all-zero BARRIER_OR: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errs) != 1 || !errors.Is(errs[0], hsa.ErrInvalidPacket) {
		t.Errorf("error callback got %v", errs)
	}
}

// A malformed packet reports INVALID_PACKET_FORMAT through the callback
// and stops its queue; later packets do not run but their signals complete
// with an error, and other queues keep working.
func TestMalformedPacketStopsQueue(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	for _, tc := range []struct {
		name  string
		write func(p *aql.KernelDispatch) aql.Header
	}{
		{"setup dims 0", func(p *aql.KernelDispatch) aql.Header {
			p.Setup = 0
			return aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
		}},
		{"workgroup size 0", func(p *aql.KernelDispatch) aql.Header {
			p.Setup, p.WorkgroupSizeX = 1, 0
			return aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
		}},
		{"unknown type", func(p *aql.KernelDispatch) aql.Header { return aql.Header(7) }},
		{"reserved fence", func(p *aql.KernelDispatch) aql.Header {
			return aql.MakeHeader(aql.TypeBarrierAnd, true, 3, 0)
		}},
		{"vendor specific", func(p *aql.KernelDispatch) aql.Header { return aql.Header(aql.TypeVendorSpecific) }},
		{"unknown kernel object", func(p *aql.KernelDispatch) aql.Header {
			p.Setup, p.KernelObject = 1, 0x1234
			return aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errc := make(chan error, 10)
			q := newQueue(t, a, 4, func(got *rocr.Queue, err error) { errc <- err })
			bad := newSignal(t, 1)
			p := aql.KernelDispatch{WorkgroupSizeX: 1, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, GridSizeX: 1, GridSizeY: 1, GridSizeZ: 1,
				KernelObject: kernelTag.Symbol().Object, CompletionSignal: bad.Handle()}
			h := tc.write(&p)
			p.Header = h
			if _, err := q.Submit(unsafe.Pointer(&p), h); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-errc:
			case <-time.After(10 * time.Second):
				t.Fatal("no error callback")
			}
			if tc.name != "unknown kernel object" {
				if !errors.Is(err, hsa.ErrInvalidPacket) || hsa.StatusOf(err) != hsa.StatusErrorInvalidPacketFormat {
					t.Errorf("callback error %v (%s)", err, hsa.StatusOf(err).Name())
				}
			} else if err == nil {
				t.Error("no error")
			}
			if q.Err() == nil || q.Err().Error() != err.Error() {
				t.Errorf("queue error %v, callback got %v", q.Err(), err)
			}
			// The callback runs before the packet's signal completes: wait
			// for the signal before reading its error.
			wait(t, bad, 10*time.Second)
			if bad.Err() == nil {
				t.Error("the malformed packet's signal carries no error")
			}
			// Later packets: not run, signals completed with an error.
			later := newSignal(t, 2)
			launch(t, q, kernelTag, &tagArgs{9}, 1, 1, later)
			barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{}, later)
			wait(t, later, 10*time.Second)
			if later.Err() == nil || len(takeTags()) != 0 {
				t.Errorf("a packet after the failure ran: %v", later.Err())
			}
			if len(errc) != 0 {
				t.Errorf("the callback ran again: %v", <-errc)
			}
			// Other queues keep working.
			q2 := newQueue(t, a, 4, nil)
			ok := newSignal(t, 1)
			launch(t, q2, kernelTag, &tagArgs{10}, 1, 1, ok)
			wait(t, ok, 10*time.Second)
			if ok.Err() != nil || fmt.Sprint(takeTags()) != "[10]" {
				t.Errorf("another queue: %v", ok.Err())
			}
		})
	}
}

func TestKernelPanicFailsDispatch(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	errc := make(chan error, 1)
	q := newQueue(t, a, 4, func(_ *rocr.Queue, err error) { errc <- err })
	sig := newSignal(t, 1)
	launch(t, q, kernelPanic, &panicArgs{5}, 8*64, 64, sig)
	wait(t, sig, 10*time.Second)
	err := sig.Err()
	if !errors.Is(err, hsa.ErrKernelFailed) || !strings.Contains(err.Error(), "rocr_test_panic") ||
		!strings.Contains(err.Error(), "work-group [5 0 0]") || !strings.Contains(err.Error(), "boom") {
		t.Errorf("panicking kernel: %v", err)
	}
	if e := <-errc; e == nil || e.Error() != err.Error() {
		t.Errorf("callback: %v", e)
	}
}

func TestDispatchTimestamps(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q := newQueue(t, a, 4, nil)
	release, running := gate(400)
	sig := newSignal(t, 1)
	before := clock.Now()
	launch(t, q, kernelGate, &tagArgs{400}, 1, 1, sig)
	<-running
	time.Sleep(2 * time.Millisecond)
	release()
	wait(t, sig, 10*time.Second)
	after := clock.Now()
	start, end := sig.Timestamps()
	if start == 0 || end < start || start < before || end > after || end-start < uint64(time.Millisecond) {
		t.Errorf("timestamps %d..%d, submitted at %d, waited at %d", start, end, before, after)
	}
	b := newSignal(t, 1)
	barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{}, b)
	wait(t, b, 10*time.Second)
	if s, e := b.Timestamps(); s < end || e < s {
		t.Errorf("barrier timestamps %d..%d after %d", s, e, end)
	}
}

func TestDebugLog(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	var mu sync.Mutex
	var lines []string
	old := rocrhook.SetDebugLog(func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() })
	defer func() { rocrhook.SetDebugLog(old) }()

	t.Setenv("HSA_ENABLE_DEBUG", "0")
	q := newQueue(t, a, 4, nil)
	sig := newSignal(t, 1)
	launch(t, q, kernelTag, &tagArgs{1}, 1, 1, sig)
	wait(t, sig, 10*time.Second)
	q.Destroy()
	if len(lines) != 0 {
		t.Fatalf("logged without HSA_ENABLE_DEBUG: %q", lines)
	}

	t.Setenv("HSA_ENABLE_DEBUG", "1")
	q = newQueue(t, a, 4, nil)
	sig.Store(2, hsa.Release)
	launch(t, q, kernelTag, &tagArgs{2}, 256, 64, sig)
	barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{}, sig)
	wait(t, sig, 10*time.Second)
	q.Destroy()
	takeTags()
	mu.Lock()
	defer mu.Unlock()
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
	for _, want := range []string{fmt.Sprintf("queue %d", q.ID()), "packet 0", "KERNEL_DISPATCH", "kernel=rocr_test_tag", "grid=[256 1 1]", "wg=[64 1 1]"} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("line %q lacks %q", lines[0], want)
		}
	}
	for _, want := range []string{"packet 1", "BARRIER_AND"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("line %q lacks %q", lines[1], want)
		}
	}
}

// Destroying a queue whose processor waits on a barrier that never
// resolves, or while producers wait for space, returns, and every pending
// signal completes with an error.
func TestDestroyUnblocks(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q, err := a.CreateQueue(2, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	never := newSignal(t, 1)
	b1, b2 := newSignal(t, 1), newSignal(t, 1)
	barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{never}, b1)
	barrier(t, q, aql.TypeBarrierOr, [5]*rocr.Signal{never}, b2)
	var reserveErr atomic.Pointer[error]
	blocked := make(chan struct{})
	go func() {
		defer close(blocked)
		_, err := q.Reserve() // the ring is full: waits for space
		reserveErr.Store(&err)
	}()
	time.Sleep(5 * time.Millisecond)
	destroyed := make(chan error)
	go func() { destroyed <- q.Destroy() }()
	select {
	case err := <-destroyed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Destroy hangs on a barrier that never resolves")
	}
	wait(t, b1, 10*time.Second)
	wait(t, b2, 10*time.Second)
	if b1.Err() == nil || b2.Err() == nil {
		t.Errorf("barrier signals completed without error: %v %v", b1.Err(), b2.Err())
	}
	select {
	case <-blocked:
		if p := reserveErr.Load(); p == nil || !errors.Is(*p, hsa.ErrInvalidQueue) {
			t.Errorf("Reserve on a destroyed full queue: %v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a producer waiting for space hangs after Destroy")
	}
}

// ShutDown with a queue stuck on a barrier returns too.
func TestShutDownWithBlockedQueue(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	if err := rocr.Init(); err != nil {
		t.Fatal(err)
	}
	ags, _ := rocr.Agents()
	q, err := ags[0].CreateQueue(4, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	never, _ := rocr.NewSignal(1)
	defer never.Destroy()
	barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{never}, nil)
	time.Sleep(time.Millisecond)
	done := make(chan error)
	go func() { done <- rocr.ShutDown() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ShutDown hangs on a queue blocked on a barrier")
	}
}

// The error callback may destroy its queue.
func TestDestroyFromErrorCallback(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	done := make(chan error, 1)
	q, err := a.CreateQueue(4, hsa.QueueMulti, func(q *rocr.Queue, _ error) { done <- q.Destroy() })
	if err != nil {
		t.Fatal(err)
	}
	sig := newSignal(t, 1)
	launch(t, q, kernelPanic, &panicArgs{0}, 1, 1, sig)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Destroy from the error callback deadlocks")
	}
	wait(t, sig, 10*time.Second)
	if !q.Destroyed() {
		t.Error("not destroyed")
	}
}

// A packet reserved before Destroy and published while the processor is
// stopping is failed, not left pending for ever: the processor waits for
// the submitter before it drains the ring.
func TestDestroyWaitsForReservedPacket(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q, err := a.CreateQueue(16, hsa.QueueMulti, nil)
	require.NoError(t, err)
	// The processor is busy in a barrier when Destroy begins.
	dep := newSignal(t, 1)
	var block aql.BarrierAnd
	block.DepSignal[0] = dep.Handle()
	_, err = q.Submit(unsafe.Pointer(&block), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
	require.NoError(t, err)
	id, err := q.Reserve()
	require.NoError(t, err)
	destroyed := make(chan error, 1)
	go func() { destroyed <- q.Destroy() }()
	time.Sleep(50 * time.Millisecond) // the barrier gives up, the processor stops
	done := newSignal(t, 1)
	// The body only: the header stays INVALID until Publish.
	body := aql.BarrierAnd{CompletionSignal: done.Handle()}
	copy(unsafe.Slice((*byte)(unsafe.Add(q.Slot(id), 4)), aql.PacketSize-4), unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&body), 4)), aql.PacketSize-4))
	q.Publish(id, aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem), 0)
	require.NoError(t, <-destroyed)
	_, ok := done.WaitTimed(hsa.CondLT, 1, 5*time.Second, hsa.WaitBlocked)
	require.True(t, ok, "a packet published while its queue was destroyed never completed")
	assert.ErrorIs(t, done.Err(), hsa.ErrInvalidQueue, "the packet published into a destroyed queue fails")
}

// A 2-D copy whose packet never reaches its executor (the queue is
// destroyed while it waits behind a barrier) drops its descriptor, and
// with it the Go memory the descriptor names.
func TestDestroyDropsRectDescriptor(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	q, err := a.CreateQueue(4, hsa.QueueMulti, nil)
	require.NoError(t, err)
	never := newSignal(t, 1)
	barrier(t, q, aql.TypeBarrierAnd, [5]*rocr.Signal{never}, nil)
	id := hostref.RegisterRect(&spi.Rect{})
	done := newSignal(t, 1)
	p := aql.RectWork{ID: id}.Call().Packet(done.Handle())
	_, err = q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeAgentDispatch, true, 0, 0))
	require.NoError(t, err)
	require.True(t, rocr.RectRegistered(id))
	require.NoError(t, q.Destroy())
	wait(t, done, 10*time.Second)
	assert.Error(t, done.Err())
	assert.False(t, rocr.RectRegistered(id), "the descriptor outlives its discarded packet")
}
