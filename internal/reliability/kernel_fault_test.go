package reliability_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// TestKernelPanic: a Go kernel that panics fails its own dispatch, the
// packets queued behind it on its stream, and an event recorded after it,
// naming the kernel; a stream running beside it finishes correctly, and new
// streams work.
func TestKernelPanic(t *testing.T) {
	f := open(t, 1)
	bad, good := f.stream(f.dev), f.stream(f.dev)
	ev := f.event(f.dev)
	const n = 1000
	b := fromSlice(t, f.dev, iota32(n, 0))
	err := reliability.Guard(t, 10*time.Second, func() error {
		// Spin first so that the panic, the record and the host function
		// are all queued before the failure is known.
		if err := f.fn["reliability_spin"].Launch(bad, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(30)); err != nil {
			return err
		}
		if err := f.fn["reliability_panic"].Launch(bad, gpu.D1(4), gpu.D1(2), 0, int32(1)); err != nil {
			return err
		}
		if err := bad.Record(ev); err != nil {
			return err
		}
		ran := false
		if err := bad.LaunchHostFunc(func() error { ran = true; return nil }); err != nil {
			return err
		}
		if err := f.fn["reliability_axpb"].Launch(good, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, b, uint32(2), uint32(5), int32(n)); err != nil {
			return err
		}
		wantErr(t, bad.Synchronize(), gpu.ErrLaunchFailure, "reliability_panic", "panicked", "panic 1")
		wantErr(t, ev.Synchronize(), gpu.ErrLaunchFailure, "reliability_panic")
		if ran {
			t.Error("a host function queued after the failed kernel ran")
		}
		wantErr(t, f.fn["reliability_spin"].Launch(bad, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(0)), gpu.ErrLaunchFailure, "reliability_panic")
		return good.Synchronize()
	})
	if err != nil {
		t.Fatalf("the stream beside the failed one: %v", err)
	}
	got, err := b.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != uint32(i)*2+5 {
			t.Fatalf("b[%d] = %d, want %d", i, v, uint32(i)*2+5)
		}
	}
	if err := bad.Destroy(); err != nil {
		t.Errorf("destroying the failed stream: %v", err)
	}
	if n := rocrhook.PendingCallbacks(); n != 0 {
		t.Errorf("%d host callbacks of packets that never ran are still registered", n)
	}
	f.healthy()
}

// TestKernelTimeout: a runaway kernel on a stream with a kernel timeout
// fails its own launch with ErrLaunchTimeOut when the bound passes, while
// another stream keeps running; SynchronizeContext gives up earlier with
// ErrNotReady. The same bound comes from HIPGO_KERNEL_TIMEOUT.
func TestKernelTimeout(t *testing.T) {
	t.Run("SetKernelTimeout", func(t *testing.T) {
		f := open(t, 2)
		runaway, other := f.stream(f.dev), f.stream(f.devs[1])
		if err := runaway.SetKernelTimeout(300 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		done := newHost[int32](t, f.dev, 1)
		start := time.Now()
		err := reliability.Guard(t, 10*time.Second, func() error {
			// Eight work-groups: once the bound passes, the groups still
			// waiting for a worker never start.
			if err := f.fn["reliability_spin"].Launch(runaway, gpu.D1(8), gpu.D1(1), 0, done, int32(-1)); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			err := runaway.SynchronizeContext(ctx)
			wantErr(t, err, gpu.ErrNotReady, "pending")
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("SynchronizeContext: %v does not wrap the context's error", err)
			}
			// The other device's stream runs while the runaway spins.
			b := fromSlice(t, f.devs[1], iota32(500, 0))
			for i := 0; i < 20; i++ {
				if err := f.function(f.devs[1], "reliability_axpb").Launch(other, gpu.D1(8), gpu.D1(64), 0, b, uint32(1), uint32(1), int32(500)); err != nil {
					return err
				}
			}
			if err := other.Synchronize(); err != nil {
				return err
			}
			// A runaway kernel holds the workers it took, not the others'
			// dispatches: the other stream finished while it still runs.
			if err := runaway.Query(); !errors.Is(err, gpu.ErrNotReady) {
				t.Errorf("the other stream finished only after the runaway kernel (%v, after %v)", err, time.Since(start))
			}
			got, err := b.ToSlice()
			if err != nil {
				return err
			}
			if got[499] != 499+20 {
				t.Errorf("other stream computed %d, want %d", got[499], 499+20)
			}
			return runaway.Synchronize()
		})
		wantErr(t, err, gpu.ErrLaunchTimeOut, "reliability_spin", "timeout", "300ms")
		if !errors.Is(err, hsa.ErrTimeout) {
			t.Errorf("%v does not wrap hsa.ErrTimeout", err)
		}
		if el := time.Since(start); el < 300*time.Millisecond || el > 5*time.Second {
			t.Errorf("the runaway kernel was stopped after %v, want just past 300ms", el)
		}
		if done.Slice()[0] != 1 {
			t.Error("the kernel did not see Canceled and return")
		}
		f.healthy()
	})
	t.Run("HIPGO_KERNEL_TIMEOUT", func(t *testing.T) {
		f := open(t, 1, "HIPGO_KERNEL_TIMEOUT", "40ms")
		s := f.stream(f.dev)
		err := reliability.Guard(t, 10*time.Second, func() error {
			// A kernel within the bound is untouched.
			if err := f.fn["reliability_spin"].Launch(s, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(1)); err != nil {
				return err
			}
			if err := s.Synchronize(); err != nil {
				return err
			}
			if err := f.fn["reliability_spin"].Launch(s, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(-1)); err != nil {
				return err
			}
			return s.Synchronize()
		})
		wantErr(t, err, gpu.ErrLaunchTimeOut, "reliability_spin", "40ms")
		f.healthy()
	})
	t.Run("bad HIPGO_KERNEL_TIMEOUT", func(t *testing.T) {
		t.Setenv("HIPGO_DRIVER", "cpu")
		t.Setenv("HIPGO_KERNEL_TIMEOUT", "soon")
		t.Cleanup(func() { _ = gpu.Shutdown() })
		dev, err := gpu.Default()
		if err != nil {
			t.Fatal(err)
		}
		_, err = stream.New(dev)
		wantErr(t, err, gpu.ErrInvalidValue, "HIPGO_KERNEL_TIMEOUT", "soon")
	})
}

// TestKernelOutOfBounds: kernels that write past their buffer fail their
// own dispatch with ErrIllegalAddress naming the kernel, and nothing is
// written: not the buffer, not its neighbours.
func TestKernelOutOfBounds(t *testing.T) {
	f := open(t, 1)
	const n = 256
	bufs := make([]*bufU32, 3)
	for i := range bufs {
		bufs[i] = fromSlice(t, f.dev, iota32(n, uint32(i*1000)))
	}
	// The cpu agent's heap carves buffers of one size class out of one
	// chunk: b[1]'s neighbours are next to it, so an unchecked overrun
	// would land in b[2].
	if gap := bufs[2].Ptr().Addr() - bufs[1].Ptr().Addr(); gap > 4*n {
		t.Logf("buffers are %d bytes apart", gap)
	}
	cases := []struct {
		name  string
		extra int32
	}{{"one element past", 1}, {"a whole buffer past", n}, {"before the start", -n - 1}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := f.stream(f.dev)
			err := reliability.Guard(t, 10*time.Second, func() error {
				if err := f.fn["reliability_overrun"].Launch(s, gpu.D1(1), gpu.D1(1), 0, bufs[1], int32(n), c.extra, uint32(0xdead)); err != nil {
					return err
				}
				return s.Synchronize()
			})
			if c.extra < 0 {
				wantErr(t, err, gpu.ErrIllegalAddress, "reliability_overrun", "the range is reversed (lo 0 > hi -1)")
			} else {
				wantErr(t, err, gpu.ErrIllegalAddress, "reliability_overrun", "outside", "of 256 uint32")
			}
			for i, b := range bufs {
				got, err := b.ToSlice()
				if err != nil && i == 1 {
					// The first read of the failed kernel's buffer reports
					// its failure; the next reads the memory.
					got, err = b.ToSlice()
				}
				if err != nil {
					t.Fatal(err)
				}
				for j, v := range got {
					if v != uint32(i*1000+j) {
						t.Fatalf("buffer %d [%d] = %#x after the overrun, want %#x", i, j, v, i*1000+j)
					}
				}
			}
		})
	}
	f.healthy()
}
