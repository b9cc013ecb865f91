package benchmarks

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// Back-to-back launches on one stream, timed by gpu/gputest: ns/op ends
// with the work done, gpu-ns/op is the GPU's own time from events, and
// GB/s and GFLOP/s are of that time. Unlike the families above, no step
// waits for its kernel, so these are a kernel's throughput in a stream
// full of work.

// streamVectorAddSizes: 2^26 is the DESIGN anchor's size, on a GPU only.
func streamVectorAddSizes(dev *gpu.Device) []int {
	s := []int{1 << 14, 1 << 20}
	if !dev.Properties().IsCPU {
		s = append(s, 1<<26)
	}
	return s
}

// BenchmarkVectorAddStream is c = a + b over n float32 (12n bytes).
func BenchmarkVectorAddStream(b *testing.B) {
	dev := gputest.Device(b)
	for _, n := range streamVectorAddSizes(dev) {
		b.Run("impl=hipgo/"+elemLabel(n), func(b *testing.B) { streamVectorAdd(b, gputest.Device(b), n) })
	}
}

func streamVectorAdd(b *testing.B, dev *gpu.Device, n int) {
	s, bufs := streamSetup(b, dev, n, 1, 2, 0)
	x, y, z := bufs[0], bufs[1], bufs[2]
	gputest.Benchmark(b, s, func() error { return kernels.VectorAdd(s, x, y, z, n) }, gputest.Bytes(12*int64(n)))
	if err := checkDevice("vector_add", z, 3); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSgemmStream is C = A*B for square float32 matrices of side n
// (2n^3 FLOPs).
func BenchmarkSgemmStream(b *testing.B) {
	dev := gputest.Device(b)
	sizes := []int{256, 1024}
	if !dev.Properties().IsCPU {
		sizes = append(sizes, 4096)
	}
	for _, n := range sizes {
		b.Run("impl=hipgo/"+elemLabel(n), func(b *testing.B) { streamSgemm(b, gputest.Device(b), n) })
	}
}

func streamSgemm(b *testing.B, dev *gpu.Device, n int) {
	s, bufs := streamSetup(b, dev, n*n, 1, 1, 0)
	x, y, z := bufs[0], bufs[1], bufs[2]
	flops := 2 * float64(n) * float64(n) * float64(n)
	gputest.Benchmark(b, s, func() error { return kernels.Sgemm(s, n, n, n, 1, x, y, 0, z) }, gputest.FLOPs(flops))
	if err := checkDevice("sgemm", z, float32(n)); err != nil {
		b.Fatal(err)
	}
}

// streamSetup makes a stream and buffers of n float32 set to values on
// the benchmark's device; the benchmark's end releases them.
func streamSetup(b *testing.B, dev *gpu.Device, n int, values ...float32) (*stream.Stream, []*buffer.Buffer[float32]) {
	b.Helper()
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Destroy() })
	bufs, err := deviceF32(&env{dev: dev, s: s}, n, values...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = freeAll(bufs) })
	return s, bufs
}

// TestStreamBenchmarks runs each at its smallest size: they report the
// GPU's time and rate, and the host's time over the same operations is not
// less than the GPU's.
func TestStreamBenchmarks(t *testing.T) {
	for name, f := range map[string]func(*testing.B, *gpu.Device, int){"VectorAddStream": streamVectorAdd, "SgemmStream": streamSgemm} {
		t.Run(name, func(t *testing.T) {
			r := testing.Benchmark(func(b *testing.B) { f(b, gputest.Device(b), 64) })
			require.Positive(t, r.N, "the benchmark failed")
			gpuNs := r.Extra["gpu-ns/op"]
			assert.Positive(t, gpuNs)
			// The host's time over the GPU's window contains it, however
			// loaded the machine is; 1% for two clocks that may drift.
			assert.GreaterOrEqual(t, r.Extra["window-ns/op"], 0.99*gpuNs)
			assert.Positive(t, r.Extra["GB/s"]+r.Extra["GFLOP/s"])
		})
	}
}

// BenchmarkVectorAddBackToBack is vector_add over 2^26 float32 (2^20 on
// the cpu agent) launched back to back, a synchronize only at the end of
// each batch of 50, without gputest's pacing: the wall time per kernel
// of a stream kept full, beside the same kernel synchronized one by one.
func BenchmarkVectorAddBackToBack(b *testing.B) {
	dev := gputest.Device(b)
	n := 1 << 26
	if dev.Properties().IsCPU {
		n = 1 << 20
	}
	s, bufs := streamSetup(b, dev, n, 1, 2, 0)
	x, y, z := bufs[0], bufs[1], bufs[2]
	run := func(b *testing.B, batch int) {
		if err := kernels.VectorAdd(s, x, y, z, n); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := kernels.VectorAdd(s, x, y, z, n); err != nil {
				b.Fatal(err)
			}
			if (i+1)%batch == 0 || i == b.N-1 {
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		b.ReportMetric(12*float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
	}
	b.Run("batch=1", func(b *testing.B) { run(b, 1) })
	b.Run("batch=50", func(b *testing.B) { run(b, 50) })
}

// BenchmarkPacing is the study behind gputest's pacing: vector_add as in
// BenchmarkVectorAddBackToBack (whose batch=50 is the reference), with one
// ingredient of a paced loop each: an untimed event recorded after every
// kernel; an event after every kernel, waited for; an event every window
// kernels and a wait for the one before; a stream synchronize every
// window kernels; and gputest itself. Timed events around each loop give
// its GPU time beside the wall time.
func BenchmarkPacing(b *testing.B) {
	dev := gputest.Device(b)
	n := 1 << 26
	if dev.Properties().IsCPU {
		n = 1 << 20
	}
	s, bufs := streamSetup(b, dev, n, 1, 2, 0)
	x, y, z := bufs[0], bufs[1], bufs[2]
	newEvent := func(b *testing.B, flags stream.EventFlags) *stream.Event {
		ev, err := stream.NewEvent(dev, flags)
		require.NoError(b, err)
		b.Cleanup(func() { _ = ev.Destroy() })
		return ev
	}
	launch := func(b *testing.B) {
		if err := kernels.VectorAdd(s, x, y, z, n); err != nil {
			b.Fatal(err)
		}
	}
	sync := func(b *testing.B) {
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
	// loop runs b.N kernels, calling step after each, between timed events.
	loop := func(b *testing.B, step func(i int)) {
		start, end := newEvent(b, stream.EventDefault), newEvent(b, stream.EventDefault)
		launch(b)
		sync(b)
		b.ResetTimer()
		require.NoError(b, s.Record(start))
		for i := 0; i < b.N; i++ {
			launch(b)
			step(i)
		}
		require.NoError(b, s.Record(end))
		sync(b)
		b.StopTimer()
		gpuT, err := stream.Elapsed(start, end)
		require.NoError(b, err)
		b.ReportMetric(float64(gpuT.Nanoseconds())/float64(b.N), "gpu-ns/op")
		b.ReportMetric(12*float64(n)*float64(b.N)/float64(b.Elapsed().Nanoseconds()), "GB/s")
	}
	b.Run("gputest", func(b *testing.B) {
		gputest.Benchmark(b, s, func() error { return kernels.VectorAdd(s, x, y, z, n) }, gputest.Bytes(12*int64(n)))
	})
	b.Run("sync=50", func(b *testing.B) {
		loop(b, func(i int) {
			if (i+1)%50 == 0 {
				sync(b)
			}
		})
	})
	b.Run("record=each/sync=50", func(b *testing.B) {
		ev := newEvent(b, stream.EventDisableTiming)
		loop(b, func(i int) {
			require.NoError(b, s.Record(ev))
			if (i+1)%50 == 0 {
				sync(b)
			}
		})
	})
	b.Run("record+wait=each", func(b *testing.B) {
		ev := newEvent(b, stream.EventDisableTiming)
		loop(b, func(int) {
			require.NoError(b, s.Record(ev))
			require.NoError(b, ev.Synchronize())
		})
	})
	for _, w := range []int{4, 16} {
		b.Run(fmt.Sprintf("wait=previous/window=%d", w), func(b *testing.B) {
			evs := [2]*stream.Event{newEvent(b, stream.EventDisableTiming), newEvent(b, stream.EventDisableTiming)}
			loop(b, func(i int) {
				if (i+1)%w != 0 {
					return
				}
				k := (i + 1) / w
				require.NoError(b, s.Record(evs[k%2]))
				if k > 1 {
					require.NoError(b, evs[(k+1)%2].Synchronize())
				}
			})
		})
		b.Run(fmt.Sprintf("sync=%d", w), func(b *testing.B) {
			loop(b, func(i int) {
				if (i+1)%w == 0 {
					sync(b)
				}
			})
		})
	}
}
