package reliability_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

var errInjected = errors.New("injected driver failure")

// failNth installs a fault hook that fails the nth call of op on queue q
// (n from 1) with errInjected, counted in calls; it is removed when the
// test ends.
func failNth(t *testing.T, q *rocr.Queue, op rocrhook.FaultOp, n int64, calls *atomic.Int64) {
	t.Helper()
	prev := rocrhook.SetFaultHook(func(o rocrhook.FaultOp, fq any, id uint64) error {
		if fq != q || o != op {
			return nil
		}
		if calls.Add(1) == n {
			return hsa.Errorf(hsa.StatusErrorException, "driver", "%s of packet %d: %w", o, id, errInjected)
		}
		return nil
	})
	t.Cleanup(func() { rocrhook.SetFaultHook(prev) })
}

// TestInjectedDispatchFault: a driver call that fails midway through a
// stream's work surfaces on that stream and the event recorded after it,
// with the injected cause; the packets behind it do not run and complete
// with the error (nothing hangs); pinned host memory and host callbacks
// are released; another stream on the same device is untouched; and the
// device runs new streams.
func TestInjectedDispatchFault(t *testing.T) {
	f := open(t, 1)
	bad, good := f.stream(f.dev), f.stream(f.dev)
	var calls atomic.Int64
	failNth(t, queueOf(t, bad), rocrhook.FaultDispatch, 2, &calls)
	const n = 512
	b := newBuf[uint32](t, f.dev, n)
	other := fromSlice(t, f.dev, iota32(n, 0))
	ev, evGood := f.event(f.dev), f.event(f.dev)
	src := iota32(n, 100)
	out := make([]uint32, n)
	ran := false
	axpb := f.fn["reliability_axpb"]
	err := reliability.Guard(t, 10*time.Second, func() error {
		// The other stream's work goes first: once the bad stream's
		// failure is sticky, its later calls return it, and the function
		// returns early.
		if err := axpb.Launch(good, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, other, uint32(2), uint32(0), int32(n)); err != nil {
			return err
		}
		if err := good.Record(evGood); err != nil {
			return err
		}
		// Hold the bad stream until everything is queued, so the failure
		// cannot become sticky while the test is still submitting.
		gate := make(chan struct{})
		held := gate
		if err := bad.LaunchHostFunc(func() error { <-held; return nil }); err != nil {
			return err
		}
		defer func() {
			if gate != nil {
				close(gate) // an early return must not leave the stream held
			}
		}()
		if err := stream.CopyToDevice(bad, b, 0, src); err != nil {
			return err
		}
		for i := 0; i < 3; i++ { // the second dispatch fails
			if err := axpb.Launch(bad, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, b, uint32(1), uint32(1), int32(n)); err != nil {
				return err
			}
		}
		if err := bad.Record(ev); err != nil {
			return err
		}
		if err := stream.CopyToHost(bad, out, b, 0); err != nil {
			return err
		}
		if err := bad.LaunchHostFunc(func() error { ran = true; return nil }); err != nil {
			return err
		}
		close(gate)
		gate = nil
		return bad.Synchronize()
	})
	wantErr(t, err, gpu.ErrLaunchFailure, "injected dispatch fault", "injected driver failure")
	if !errors.Is(err, errInjected) {
		t.Errorf("the stream's error %v does not wrap the injected cause", err)
	}
	wantErr(t, ev.Synchronize(), gpu.ErrLaunchFailure, "injected driver failure")
	if ran {
		t.Error("a host function behind the failed dispatch ran")
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("the hook saw %d dispatches of the failed queue, want 2: later packets must not reach the driver", got)
	}
	if err := evGood.Synchronize(); err != nil {
		t.Errorf("the other stream's event: %v", err)
	}
	if err := good.Synchronize(); err != nil {
		t.Errorf("the other stream: %v", err)
	}
	got, err := other.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(2*i) {
			t.Fatalf("other[%d] = %d, want %d", i, v, 2*i)
		}
	}
	// The copy and the first dispatch ran; the failed one and those after
	// it did not. The stream reported the failure: the buffer reads
	// without reporting it again.
	vals, err := b.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != uint32(100+i+1) {
			t.Fatalf("b[%d] = %d, want %d (copy and one dispatch)", i, v, 100+i+1)
		}
	}
	if err := bad.Destroy(); err != nil {
		t.Errorf("destroying the failed stream: %v", err)
	}
	if n := rocrhook.PinnedHostBuffers(); n != 0 {
		t.Errorf("%d pinned host buffers outlive the failed stream", n)
	}
	if n := rocrhook.PendingCallbacks(); n != 0 {
		t.Errorf("%d host callbacks outlive the failed stream", n)
	}
	rocrhook.SetFaultHook(nil)
	f.healthy()
}

// TestInjectedBarrierFault: the failure of a stream's wait on another
// stream's event is that stream's, not the recording stream's.
func TestInjectedBarrierFault(t *testing.T) {
	f := open(t, 2)
	rec, waiter := f.stream(f.devs[0]), f.stream(f.devs[1])
	var calls atomic.Int64
	failNth(t, queueOf(t, waiter), rocrhook.FaultBarrier, 1, &calls)
	ev := f.event(f.devs[0])
	err := reliability.Guard(t, 10*time.Second, func() error {
		if err := f.fn["reliability_spin"].Launch(rec, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(20)); err != nil {
			return err
		}
		if err := rec.Record(ev); err != nil {
			return err
		}
		if err := waiter.WaitEvent(ev); err != nil {
			return err
		}
		if err := rec.Synchronize(); err != nil {
			t.Errorf("the recording stream failed: %v", err)
		}
		return waiter.Synchronize()
	})
	wantErr(t, err, gpu.ErrLaunchFailure, "injected barrier fault")
	if err := ev.Synchronize(); err != nil {
		t.Errorf("the event itself completed with %v", err)
	}
	rocrhook.SetFaultHook(nil)
	f.healthy()
}

// TestInjectedCopyFault: a synchronous copy whose driver call fails
// returns the error, and the next copy on the device works (the copy
// engine replaces its failed queue).
func TestInjectedCopyFault(t *testing.T) {
	f := open(t, 1)
	b := newBuf[uint32](t, f.dev, 64)
	var fail atomic.Bool
	fail.Store(true)
	prev := rocrhook.SetFaultHook(func(op rocrhook.FaultOp, q any, id uint64) error {
		if op == rocrhook.FaultAgentDispatch && fail.CompareAndSwap(true, false) {
			return hsa.Errorf(hsa.StatusErrorOutOfResources, "driver", "%w", errInjected)
		}
		return nil
	})
	t.Cleanup(func() { rocrhook.SetFaultHook(prev) })
	err := reliability.Guard(t, 10*time.Second, func() error { return b.CopyFrom(iota32(64, 5)) })
	wantErr(t, err, gpu.ErrOutOfMemory, "memcpy host to device", "injected agent dispatch fault")
	if n := rocrhook.PinnedHostBuffers(); n != 0 {
		t.Errorf("%d pinned host buffers outlive the failed copy", n)
	}
	if err := b.CopyFrom(iota32(64, 5)); err != nil {
		t.Fatalf("the copy after the failed one: %v", err)
	}
	got, err := b.ToSlice()
	if err != nil || got[63] != 68 {
		t.Fatalf("after the failed copy: %v, %v", got[63], err)
	}
	f.healthy()
}
