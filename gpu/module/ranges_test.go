package module_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/annotate/annotatetest"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/testenv"
)

type rangesEnv struct {
	f    *module.Function
	s    *stream.Stream
	args module.Args
}

func newRangesEnv(tb testing.TB, dev *gpu.Device) *rangesEnv {
	m, err := module.Load(dev, set)
	require.NoError(tb, err)
	f, err := m.Function("test_scale")
	require.NoError(tb, err)
	x, err := buffer.New[float32](dev, 256)
	require.NoError(tb, err)
	tb.Cleanup(func() { x.Free() })
	s, err := stream.New(dev)
	require.NoError(tb, err)
	tb.Cleanup(func() { s.Destroy() })
	e := &rangesEnv{f: f, s: s}
	e.args.Ptr(x).Float32(1).Int32(256)
	return e
}

// BenchmarkLaunchRanges prices the profiler ranges on the launch path, in
// one run. "check" alternates blocks of 64 launches without the profiler
// check (the launch as it was before ranges) and with it, no profiler
// attached, so that drift on a shared machine falls on both alike; it
// reports each one's time per launch and their difference, check_ns/op
// (the target: at most 20 ns). "none" is the launch with no profiler,
// "nvtx" and "roctx" with the fake profiler libraries attached, a thread
// range pushed and popped around each launch. Launches are queued without
// waiting, the stream synchronized every 64.
func BenchmarkLaunchRanges(b *testing.B) {
	dev := cputest.Device(b)
	e := newRangesEnv(b, dev)
	grid, block := gpu.D1(1), gpu.D1(256)
	before := func() error { return e.f.LaunchArgsWithoutRanges(e.s, grid, block, 0, &e.args) }
	launch := func() error { return e.f.LaunchArgs(e.s, grid, block, 0, &e.args) }
	const blockLen = 64
	runBlock := func(b *testing.B, launch func() error) {
		for range blockLen {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
		}
		if err := e.s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
	for range 16 { // warm the stream's pools before the first measurement
		runBlock(b, launch)
	}
	run := func(b *testing.B, launch func() error) {
		b.ReportAllocs()
		for b.Loop() {
			runBlock(b, launch)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*blockLen), "launch_ns/op")
	}
	b.Run("check", func(b *testing.B) {
		annotatetest.Detach(b)
		b.ReportAllocs()
		var off, on time.Duration
		for b.Loop() {
			t0 := time.Now()
			runBlock(b, before)
			t1 := time.Now()
			runBlock(b, launch)
			off += t1.Sub(t0)
			on += time.Since(t1)
		}
		n := float64(b.N * blockLen)
		b.ReportMetric(float64(off.Nanoseconds())/n, "before_ns/op")
		b.ReportMetric(float64(on.Nanoseconds())/n, "none_ns/op")
		b.ReportMetric(float64((on-off).Nanoseconds())/n, "check_ns/op")
	})
	b.Run("none", func(b *testing.B) {
		annotatetest.Detach(b)
		run(b, launch)
	})
	b.Run("nvtx", func(b *testing.B) {
		annotatetest.AttachNVTX(b, false)
		run(b, launch)
	})
	b.Run("roctx", func(b *testing.B) {
		annotatetest.AttachROCTX(b, false)
		run(b, launch)
	})
}

// A launch allocates nothing with no profiler attached and nothing with
// one: kernel names are made C strings once.
func TestLaunchRangesAllocs(t *testing.T) {
	dev := setup(t)
	e := newRangesEnv(t, dev)
	launch := func() {
		require.NoError(t, e.f.LaunchArgs(e.s, gpu.D1(1), gpu.D1(256), 0, &e.args))
		require.NoError(t, e.s.Synchronize())
	}
	for _, tc := range []struct {
		name   string
		attach func(testing.TB)
	}{
		{"none", annotatetest.Detach},
		{"nvtx", func(tb testing.TB) { annotatetest.AttachNVTX(tb, false) }},
		{"roctx", func(tb testing.TB) { annotatetest.AttachROCTX(tb, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.attach(t)
			for range 10 {
				launch()
			}
			testenv.SkipAllocsUnderRace(t)
			assert.Zero(t, testing.AllocsPerRun(100, launch), "launch + synchronize with %s: allocations", tc.name)
		})
	}
}
