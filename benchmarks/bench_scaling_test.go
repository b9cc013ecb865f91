package benchmarks

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/rtc"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// BenchmarkLaunchScaling is the cost of an asynchronous launch against
// what else is live: streams (1, 16, 256), buffer arguments (1, 4, 16),
// allocations (10, 10k, 200k) and goroutines submitting at once, each on
// its own stream (1, 4, 16). The target is each family flat within 10%
// (benchmarks/README.md's scaling table). Each sub-benchmark is the
// launch_async loop of BenchmarkAPI: launches back to back, one
// synchronize at the end.
func BenchmarkLaunchScaling(b *testing.B) {
	e, err := newEnv()
	if err != nil {
		b.Skipf("no device: %v", err)
	}
	defer e.close()
	b.Run("streams", func(b *testing.B) { scaleStreams(b, e) })
	b.Run("args", func(b *testing.B) { scaleArgs(b, e) })
	b.Run("allocs", func(b *testing.B) { scaleAllocs(b, e) })
	b.Run("goroutines", func(b *testing.B) { scaleGoroutines(b, e) })
}

// launchLoop launches f b.N times on s, then synchronizes, after a
// warm-up that leaves the stream's pools filled.
func launchLoop(b *testing.B, s *stream.Stream, f func(*stream.Stream) error) {
	for range 64 {
		if err := f(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := f(s); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Synchronize(); err != nil {
		b.Fatal(err)
	}
}

// scaleStreams: launches on one stream while 0, 15 or 255 others are
// live, each having run a kernel.
func scaleStreams(b *testing.B, e *env) {
	var live []*stream.Stream
	defer func() {
		for _, s := range live {
			_ = s.Destroy()
		}
	}()
	for _, n := range []int{1, 16, 256} {
		for len(live) < n-1 {
			s, err := stream.New(e.dev)
			if err != nil {
				b.Fatal(err)
			}
			live = append(live, s)
			if err := kernels.Empty(s); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) { launchLoop(b, e.s, kernels.Empty) })
	}
}

// The argument kernels read 1, 4 or 16 buffers and do nothing: their
// launch costs its arguments' checks and dependency tracking.
var argCounts = []int{1, 4, 16}

func argKernelName(n int) string { return fmt.Sprintf("scaling_args%d", n) }

// argsSource is the argument kernels in CUDA/HIP C++, for NVRTC or hipRTC.
func argsSource() string {
	var sb strings.Builder
	for _, n := range argCounts {
		params := make([]string, n)
		for i := range params {
			params[i] = fmt.Sprintf("const float* a%d", i)
		}
		fmt.Fprintf(&sb, "extern \"C\" __global__ void %s(%s) {}\n", argKernelName(n), strings.Join(params, ", "))
	}
	return sb.String()
}

// The same kernels on the cpu agent.
type (
	args1  struct{ A0 rocr.ConstPtr[float32] }
	args4  struct{ A0, A1, A2, A3 rocr.ConstPtr[float32] }
	args16 struct {
		A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15 rocr.ConstPtr[float32]
	}
)

var argsSet = kernel.NewSet("benchmarks-scaling",
	kernel.Define("scaling_args1", func(g *kernel.Block, a *args1) {}),
	kernel.Define("scaling_args4", func(g *kernel.Block, a *args4) {}),
	kernel.Define("scaling_args16", func(g *kernel.Block, a *args16) {}),
)

// argFunctions loads the argument kernels for e's device: the cpu set on
// the cpu agent, runtime-compiled C++ on a GPU.
func argFunctions(b *testing.B, e *env) map[int]*module.Function {
	var get func(name string) (*module.Function, error)
	if e.isCPU() {
		m, err := module.Load(e.dev, argsSet)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = m.Unload() })
		get = m.Function
	} else {
		m, err := rtc.Compile(e.dev, argsSource(), rtc.Options{Name: "scaling.cu"})
		if err != nil {
			b.Skipf("argument kernels: %v", err)
		}
		b.Cleanup(func() { _ = m.Unload() })
		get = m.Function
	}
	fs := map[int]*module.Function{}
	for _, n := range argCounts {
		f, err := get(argKernelName(n))
		if err != nil {
			b.Fatal(err)
		}
		fs[n] = f
	}
	return fs
}

// scaleArgs: a launch of a kernel reading 1, 4 or 16 distinct buffers.
func scaleArgs(b *testing.B, e *env) {
	fs := argFunctions(b, e)
	bufs := make([]any, 16)
	for i := range bufs {
		bufs[i] = newF32(b, e.dev, 64)
	}
	for _, n := range argCounts {
		f, args := fs[n], bufs[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			launchLoop(b, e.s, func(s *stream.Stream) error {
				return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, args...)
			})
		})
	}
}

// scaleAllocs: a vector_add launch (three buffer arguments) while 10,
// 10k or 200k allocations are live.
func scaleAllocs(b *testing.B, e *env) {
	const elems = 64
	x, y, z := newF32(b, e.dev, elems), newF32(b, e.dev, elems), newF32(b, e.dev, elems)
	var live []*buffer.Buffer[float32]
	defer func() {
		for _, a := range live {
			_ = a.Free()
		}
	}()
	vadd := func(s *stream.Stream) error { return kernels.VectorAdd(s, x, y, z, elems) }
	for _, n := range []int{10, 10_000, 200_000} {
		t0 := time.Now()
		for len(live) < n-3 {
			a, err := buffer.New[float32](e.dev, elems)
			if err != nil {
				b.Fatal(err)
			}
			live = append(live, a)
		}
		b.Logf("%d live allocations (%v to make)", n, time.Since(t0).Round(time.Millisecond))
		name := fmt.Sprint(n)
		if n >= 1000 {
			name = fmt.Sprintf("%dk", n/1000)
		}
		b.Run(name, func(b *testing.B) { launchLoop(b, e.s, vadd) })
	}
}

// scaleGoroutines: g goroutines launch at once, each on its own stream.
// ns/op is the wall time per launch of all of them; launch-ns is what one
// launch costs the goroutine that makes it (wall time × g per launch).
func scaleGoroutines(b *testing.B, e *env) {
	ss := []*stream.Stream{e.s}
	defer func() {
		for _, s := range ss[1:] {
			_ = s.Destroy()
		}
	}()
	for _, g := range []int{1, 4, 16} {
		for len(ss) < g {
			s, err := stream.New(e.dev)
			if err != nil {
				b.Fatal(err)
			}
			ss = append(ss, s)
		}
		b.Run(fmt.Sprint(g), func(b *testing.B) {
			b.ReportAllocs()
			per := (b.N + g - 1) / g
			errs := make([]error, g)
			var wg sync.WaitGroup
			b.ResetTimer()
			t0 := time.Now()
			for i := range g {
				wg.Add(1)
				go func(s *stream.Stream) {
					defer wg.Done()
					for range per {
						if err := kernels.Empty(s); err != nil {
							errs[i] = err
							return
						}
					}
					errs[i] = s.Synchronize()
				}(ss[i])
			}
			wg.Wait()
			wall := time.Since(t0)
			b.StopTimer()
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(wall.Nanoseconds())*float64(g)/float64(per*g), "launch-ns")
		})
	}
}
