package benchmarks

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// Launch latency: the empty kernel, launched and waited for; launched b.N
// times back to back and waited for once; and a dependency across two
// streams. The peers are what Go offers for the same shape of work: start a
// goroutine and wait for it.

var launchSync = &family{
	name: "LaunchSync",
	impls: []impl{
		{"hipgo", func(e *env, _ int) (*workload, error) {
			return &workload{step: func() error {
				if err := kernels.Empty(e.s); err != nil {
					return err
				}
				return e.s.Synchronize()
			}}, nil
		}},
		{"goroutine", func(*env, int) (*workload, error) {
			var wg sync.WaitGroup
			return &workload{step: func() error {
				wg.Go(func() {})
				wg.Wait()
				return nil
			}}, nil
		}},
	},
}

// BenchmarkLaunchSync is launch + synchronize of the empty kernel
// (hipLaunchKernelGGL then hipStreamSynchronize).
func BenchmarkLaunchSync(b *testing.B) { runFamily(b, launchSync) }

var launchAsync = &family{
	name: "LaunchAsync",
	impls: []impl{
		{"hipgo", func(e *env, _ int) (*workload, error) {
			return &workload{
				step:  func() error { return kernels.Empty(e.s) },
				flush: e.s.Synchronize,
			}, nil
		}},
		{"goroutine", func(*env, int) (*workload, error) {
			var wg sync.WaitGroup
			return &workload{
				step:  func() error { wg.Go(func() {}); return nil },
				flush: func() error { wg.Wait(); return nil },
			}, nil
		}},
	},
}

// BenchmarkLaunchAsync is b.N back-to-back launches of the empty kernel and
// one synchronize: ns/op is the cost of one launch.
func BenchmarkLaunchAsync(b *testing.B) { runFamily(b, launchAsync) }

var crossStream = &family{
	name: "CrossStream",
	impls: []impl{
		{"hipgo", newCrossBuffer},
		{"hipgo-event", newCrossEvent},
		{"channel", func(*env, int) (*workload, error) {
			// Two goroutines, the second waiting on the first's result.
			x := make(chan float32, 1)
			var wg sync.WaitGroup
			return &workload{step: func() error {
				wg.Add(2)
				go func() { x <- 1; wg.Done() }()
				go func() { <-x; wg.Done() }()
				wg.Wait()
				return nil
			}}, nil
		}},
	},
}

// BenchmarkCrossStream is a kernel on stream A writing a buffer and a kernel
// on stream B using it, then a synchronize of B. impl=hipgo relies on the
// automatic BARRIER_AND from the buffer's last writer; impl=hipgo-event is
// the explicit Record / WaitEvent of two empty kernels, as CUDA's
// cross-queue peers do it.
func BenchmarkCrossStream(b *testing.B) { runFamily(b, crossStream) }

// newCrossBuffer: fill_f32 writes x on stream s, saxpy reads x on stream t.
func newCrossBuffer(e *env, _ int) (*workload, error) {
	x, err := buffer.New[float32](e.dev, 1)
	if err != nil {
		return nil, err
	}
	y, err := buffer.New[float32](e.dev, 1)
	if err != nil {
		_ = x.Free()
		return nil, err
	}
	if err := y.Fill(0); err != nil {
		return nil, errors.Join(err, x.Free(), y.Free())
	}
	steps := 0
	return &workload{
		step: func() error {
			steps++
			if err := kernels.FillF32(e.s, x, 1, 1); err != nil {
				return err
			}
			if err := kernels.Saxpy(e.t, 1, x, y, 1); err != nil {
				return err
			}
			return e.t.Synchronize()
		},
		check: func() error {
			var got [1]float32
			if err := y.CopyTo(got[:]); err != nil {
				return err
			}
			if got[0] != float32(steps) {
				return fmt.Errorf("cross-stream: y = %v after %d steps", got[0], steps)
			}
			return nil
		},
		close: func() error { return errors.Join(x.Free(), y.Free()) },
	}, nil
}

// newCrossEvent: empty on s, Record, WaitEvent on t, empty on t.
func newCrossEvent(e *env, _ int) (*workload, error) {
	ev, err := stream.NewEvent(e.dev, stream.EventDisableTiming)
	if err != nil {
		return nil, err
	}
	return &workload{
		step: func() error {
			if err := kernels.Empty(e.s); err != nil {
				return err
			}
			if err := e.s.Record(ev); err != nil {
				return err
			}
			if err := e.t.WaitEvent(ev); err != nil {
				return err
			}
			if err := kernels.Empty(e.t); err != nil {
				return err
			}
			return e.t.Synchronize()
		},
		close: ev.Destroy,
	}, nil
}
