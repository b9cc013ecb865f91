package kernel_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// The per-work-item kernels on the cpu agent beside the group-style
// kernels of the library, on the same data.

func benchSetup(b *testing.B, n int) (*gpu.Device, *stream.Stream, *module.Module, *buffer.Buffer[float32], *buffer.Buffer[float32]) {
	dev, err := gpu.Default()
	if err != nil {
		b.Fatal(err)
	}
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Destroy() })
	m, err := module.Load(dev, kernel.NewSet("sdk-bench", saxpyKernel, reduceKernel, histogramKernel))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Unload() })
	x, err := buffer.New[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	y, err := buffer.New[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = x.Free(); _ = y.Free() })
	return dev, s, m, x, y
}

func BenchmarkSaxpy(b *testing.B) {
	const n = 1 << 24
	_, s, m, x, y := benchSetup(b, n)
	f, _ := m.Function("saxpy")
	b.Run("impl=per-work-item", func(b *testing.B) {
		b.SetBytes(12 * n)
		for b.Loop() {
			if err := module.LaunchKernelGGL(f, gpu.D1(n/256), gpu.D1(256), 0, s, float32(2), x, int64(n), y, int64(n)); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=group", func(b *testing.B) {
		b.SetBytes(12 * n)
		for b.Loop() {
			if err := kernels.Saxpy(s, 2, x, y, n); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkReduce(b *testing.B) {
	const n = 1 << 22
	dev, s, m, x, _ := benchSetup(b, n)
	f, _ := m.Function("reduce")
	for _, grid := range []int{64, 1024} {
		y, err := buffer.New[float32](dev, grid)
		if err != nil {
			b.Fatal(err)
		}
		defer y.Free()
		g := map[int]string{64: "64", 1024: "1024"}[grid]
		b.Run("impl=lockstep/grid="+g, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := module.LaunchKernelGGL(f, gpu.D1(uint32(grid)), gpu.D1(256), 256*4, s, x, int64(n), y, int64(grid), uint32(256*4)); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The library's hand-written group-style reduce_sum, same grid.
		b.Run("impl=group/grid="+g, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := kernels.ReduceSum(s, x, y, n); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// groupVectorAddArgs is vector_add's kernarg layout for the group-style
// fixture below.
type groupVectorAddArgs struct {
	A, B rocr.ConstPtr[float32]
	C    rocr.Ptr[float32]
	N    int32
}

// groupVectorAdd is vector add as the library wrote it for the cpu agent
// before its kernels were Go per work-item: a work-group takes its whole
// range at once and loops over plain slices. It is the baseline of the
// per-work-item kernel's target (within 1.25×).
var groupVectorAdd = cpu.Define("group_vector_add", func(g *cpu.Group, a *groupVectorAddArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	c := a.C.Slice(g, lo, hi)
	x, y := a.A.Slice(g, lo, hi)[:len(c)], a.B.Slice(g, lo, hi)[:len(c)]
	for i := range c {
		c[i] = x[i] + y[i]
	}
})

func BenchmarkVectorAdd(b *testing.B) {
	const n = 1 << 24
	dev, s, _, x, y := benchSetup(b, n)
	z, err := buffer.New[float32](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = z.Free() })
	m, err := module.Load(dev, cpu.NewSet("sdk-bench-group", groupVectorAdd))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Unload() })
	group := m.MustFunction("group_vector_add")
	run := func(b *testing.B, launch func() error) {
		b.SetBytes(12 * n)
		for b.Loop() {
			if err := launch(); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("impl=per-work-item", func(b *testing.B) {
		run(b, func() error { return kernels.VectorAdd(s, x, y, z, n) })
	})
	b.Run("impl=group", func(b *testing.B) {
		run(b, func() error {
			return module.LaunchKernelGGL(group, gpu.D1(n/256), gpu.D1(256), 0, s, x, y, z, int32(n))
		})
	})
}
