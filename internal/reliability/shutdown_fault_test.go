package reliability_test

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/goleak"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// TestShutdownWithWorkInFlight: runaway kernels queued on several streams
// of three devices (the default streams included), a kernel that sleeps
// without polling, a stream waiting on an event behind a runaway kernel,
// a raw barrier on a signal nobody completes, and host goroutines blocked
// in Synchronize: gpu.Shutdown cancels or waits for all of it within a
// bound, frees every pool allocation, wakes every waiter with an error,
// and leaves no goroutine behind. The runtime then opens again.
func TestShutdownWithWorkInFlight(t *testing.T) {
	// Streams of earlier tests that were never destroyed still pin the
	// host slices of their completed copies: count only this test's.
	pinned := rocrhook.PinnedHostBuffers()
	f := open(t, 3)
	var waiters sync.WaitGroup
	waitErrs := make(chan error, 64)
	wait := func(s *stream.Stream) {
		waiters.Add(1)
		go func() {
			defer waiters.Done()
			waitErrs <- s.Synchronize()
		}()
	}
	for _, dev := range f.devs {
		fn := f.function(dev, "reliability_spin")
		done := newHost[int32](t, dev, 1)
		def, err := stream.DefaultStream(dev)
		if err != nil {
			t.Fatal(err)
		}
		streams := []*stream.Stream{def, f.stream(dev), f.stream(dev)}
		for _, s := range streams {
			for i := 0; i < 3; i++ {
				if err := fn.Launch(s, gpu.D1(4), gpu.D1(1), 0, done, int32(-1)); err != nil {
					t.Fatal(err)
				}
			}
			wait(s)
		}
		// A stream blocked on an event behind the runaway kernels.
		ev := f.event(dev)
		if err := streams[1].Record(ev); err != nil {
			t.Fatal(err)
		}
		blocked := f.stream(dev)
		if err := blocked.WaitEvent(ev); err != nil {
			t.Fatal(err)
		}
		if err := stream.CopyToDevice(blocked, newBuf[uint32](t, dev, 16), 0, iota32(16, 0)); err != nil {
			t.Fatal(err)
		}
		wait(blocked)
		// Memory that nobody frees.
		newBuf[float32](t, dev, 1<<16)
		newHost[float32](t, dev, 1<<10)
	}
	// A kernel that does not poll Canceled: Shutdown waits for it, so it
	// returns 200ms after the launch at the soonest, however loaded the
	// machine is.
	start := time.Now()
	if err := f.fn["reliability_store"].Launch(f.stream(f.dev), gpu.D1(1), gpu.D1(1), 0, newHost[uint32](t, f.dev, 1), int32(0), uint32(1), int32(200), int32(0)); err != nil {
		t.Fatal(err)
	}
	// A raw barrier on a signal that nobody completes.
	q, err := f.dev.Agent().CreateQueue(16, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	never, err := rocr.NewSignal(1)
	if err != nil {
		t.Fatal(err)
	}
	defer never.Destroy()
	var p aql.BarrierAnd
	p.DepSignal[0] = never.Handle()
	if _, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
		t.Fatal(err)
	}
	if rocrhook.LiveAllocations() == 0 {
		t.Fatal("no allocation to free")
	}
	time.Sleep(20 * time.Millisecond) // let everything start

	done := make(chan error, 1)
	go func() { done <- gpu.Shutdown() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("gpu.Shutdown: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("gpu.Shutdown did not return within 10s")
	}
	el := time.Since(start)
	t.Logf("gpu.Shutdown returned %v after the launch", el)
	if el < 200*time.Millisecond {
		t.Errorf("gpu.Shutdown returned %v after the launch, before the 200ms kernel that does not poll could end", el)
	}
	if n := rocrhook.LiveAllocations(); n != 0 {
		t.Errorf("%d pool allocations outlive gpu.Shutdown", n)
	}
	waiters.Wait()
	close(waitErrs)
	for err := range waitErrs {
		if err == nil {
			t.Error("a Synchronize on a stream whose work was cancelled returned nil")
		}
	}
	if n := rocrhook.PinnedHostBuffers() - pinned; n > 0 {
		t.Errorf("%d pinned host buffers of cancelled copies outlive gpu.Shutdown", n)
	}
	goleak.VerifyNone(t)

	// The runtime opens again and works.
	f2 := open(t, 2)
	f2.healthy()
}
