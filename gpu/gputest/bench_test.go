package gputest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type sleepArgs struct{ Micros int64 }

// sleepKernel takes a known time per launch, so a benchmark's figures can
// be checked against it.
var sleepKernel = kernel.Define("gputest_sleep", func(g *kernel.Block, a *sleepArgs) {
	time.Sleep(time.Duration(a.Micros) * time.Microsecond)
})

var testKernels = kernel.NewSet("gputest-test", sleepKernel, probeKernel)

// sleeper loads the test kernels on a test device and returns a launch of
// the sleep kernel on a stream of it.
func sleeper(tb testing.TB, micros int64) (*stream.Stream, func() error) {
	dev := gputest.DeviceOf(tb, "cpu")
	m, err := module.Load(dev, testKernels)
	require.NoError(tb, err)
	tb.Cleanup(func() { assert.NoError(tb, m.Unload()) })
	s, err := stream.New(dev)
	require.NoError(tb, err)
	tb.Cleanup(func() { assert.NoError(tb, s.Destroy()) })
	fn := m.MustFunction("gputest_sleep")
	return s, func() error { return module.LaunchKernelGGL(fn, gpu.D1(1), gpu.D1(1), 0, s, micros) }
}

func checkResult(t *testing.T, r testing.BenchmarkResult, bytes int64, sleepMicros float64) {
	t.Helper()
	t.Logf("N=%d %d ns/op %v", r.N, r.NsPerOp(), r.Extra)
	require.Positive(t, r.N)
	// Unpaced, b.N ramps to 10000 kernels (about 200 s); a loaded machine
	// may still overshoot the 1 s benchtime a few times.
	assert.Less(t, r.T, 30*time.Second, "the ramp-up saw the GPU's pace (benchtime is 1s)")
	gpuNs, ok := r.Extra["gpu-ns/op"]
	require.True(t, ok, "gpu-ns/op reported")
	assert.GreaterOrEqual(t, gpuNs, 0.95*sleepMicros*1e3, "the GPU time covers each kernel")
	// Launches are asynchronous: only a timed region that ends with the
	// work done makes ns/op more than the launches' microseconds. The
	// timer starts with the two windows Pace lets run ahead already
	// queued, so on a loaded machine, where the kernels overrun, ns/op
	// may read a little under the GPU time (25.2 against 29.3 ms, seen
	// once under -race on a loaded box); half of it still tells work
	// from launches. The host's window over the same operations covers
	// the GPU time exactly.
	assert.GreaterOrEqual(t, float64(r.NsPerOp()), 0.5*gpuNs, "ns/op includes the work")
	if w, ok := r.Extra["window-ns/op"]; assert.True(t, ok, "window-ns/op reported") {
		assert.GreaterOrEqual(t, w, 0.99*gpuNs, "the host's window covers the GPU time")
	}
	assert.Equal(t, bytes, r.Bytes, "Bytes sets b.SetBytes too: MB/s of ns/op beside GB/s of gpu-ns/op")
	assert.InDelta(t, float64(bytes)/gpuNs, r.Extra["GB/s"], 1e-9)
	assert.InDelta(t, 1e6/gpuNs, r.Extra["GFLOP/s"], 1e-9)
}

func TestBenchmarkTimesTheWork(t *testing.T) {
	const bytes = 1 << 20
	r := testing.Benchmark(func(b *testing.B) {
		s, launch := sleeper(b, 20000)
		gputest.Benchmark(b, s, launch, gputest.Bytes(bytes), gputest.FLOPs(1e6))
	})
	checkResult(t, r, bytes, 20000)
}

func TestTimerWithBN(t *testing.T) {
	const bytes = 4096
	r := testing.Benchmark(func(b *testing.B) {
		s, launch := sleeper(b, 200)
		require.NoError(b, launch()) // warm-up
		tm := gputest.StartTimer(b, s, gputest.Bytes(bytes), gputest.FLOPs(1e6))
		for range b.N {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
		}
		tm.Stop()
	})
	checkResult(t, r, bytes, 200)
}

func TestTimerWithLoop(t *testing.T) {
	const bytes = 4096
	r := testing.Benchmark(func(b *testing.B) {
		s, launch := sleeper(b, 200)
		require.NoError(b, launch())
		tm := gputest.StartTimer(b, s, gputest.Bytes(bytes), gputest.FLOPs(1e6))
		for b.Loop() {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
			tm.Pace()
		}
		tm.Stop()
	})
	checkResult(t, r, bytes, 200)
}
