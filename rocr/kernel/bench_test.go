package kernel_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
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
	dev, s, _, x, y := benchSetup(b, n)
	b.Run("impl=per-work-item", func(b *testing.B) {
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
	group := groupModule(b, dev).MustFunction("group_saxpy")
	b.Run("impl=group", func(b *testing.B) {
		b.SetBytes(12 * n)
		for b.Loop() {
			if err := module.LaunchKernelGGL(group, gpu.D1(n/256), gpu.D1(256), 0, s, float32(2), x, y, int32(n)); err != nil {
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
	groupFns := groupModule(b, dev)
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
		// The library's reduce_sum: a Go kernel with barriers that
		// hipgo-gen runs by loop fission, same grid.
		b.Run("impl=fission/grid="+g, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := kernels.LaunchReduceSum(s, gpu.D1(uint32(grid)), gpu.D1(256), 256*4, x, y, int32(n)); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The hand-written group-style reduce_sum, same grid.
		b.Run("impl=group/grid="+g, func(b *testing.B) {
			b.SetBytes(4 * n)
			for b.Loop() {
				if err := module.LaunchKernelGGL(groupFns.MustFunction("group_reduce_sum"), gpu.D1(uint32(grid)), gpu.D1(256), 256*4, s, x, y, int32(n)); err != nil {
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
var groupVectorAdd = kernel.Define("group_vector_add", func(g *kernel.Block, a *groupVectorAddArgs) {
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
	group := groupModule(b, dev).MustFunction("group_vector_add")
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

type groupSaxpyArgs struct {
	Alpha float32
	X     rocr.ConstPtr[float32]
	Y     rocr.Ptr[float32]
	N     int32
}

// groupSaxpy is saxpy in the former group style.
var groupSaxpy = kernel.Define("group_saxpy", func(g *kernel.Block, a *groupSaxpyArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	y := a.Y.Slice(g, lo, hi)
	x := a.X.Slice(g, lo, hi)[:len(y)]
	for i := range y {
		y[i] = a.Alpha*x[i] + y[i]
	}
})

type groupReduceArgs struct {
	In      rocr.ConstPtr[float32]
	Partial rocr.Ptr[float32]
	N       int32
}

// groupReduceSum is the former hand-written group-style reduce_sum: each
// stretch between two barriers one loop over the group's work-items, the
// per-work-item sums in group memory, read in order; each work-item adds
// its elements in the grid-stride order, as the per-work-item kernel does.
var groupReduceSum = kernel.Define("group_reduce_sum", func(g *kernel.Block, a *groupReduceArgs) {
	bs := g.BlockDim().X
	sdata := kernel.GroupShared[float32](g, 0, bs)
	n := int(a.N)
	first := g.BlockIdx().X * bs
	stride := g.GridDim().X * bs
	clear(sdata)
	if items := g.Items(0); first < n {
		in := a.In.Slice(g, first, n)
		for base := 0; base < len(in); base += stride {
			row := in[base:min(base+items, len(in))]
			for tid, v := range row {
				sdata[tid] += v
			}
		}
	}
	for s := bs / 2; s > 0; s >>= 1 {
		for tid := 0; tid < s; tid++ {
			sdata[tid] += sdata[tid+s]
		}
	}
	*a.Partial.At(g, g.BlockIdx().X) = sdata[0]
})

// groupModule loads the group-style fixtures on dev for b.
func groupModule(b *testing.B, dev *gpu.Device) *module.Module {
	m, err := module.Load(dev, kernel.NewSet("sdk-bench-group", groupVectorAdd, groupSaxpy, groupReduceSum))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Unload() })
	return m
}

// BenchmarkLockstepCooperative launches the lockstep reduce
// cooperatively (every group resident, each on a goroutine of its own) on
// as many groups as the agent holds at once: the work-items' coroutines
// are the agent's to keep or to start per launch.
func BenchmarkLockstepCooperative(b *testing.B) {
	const n, block = 1 << 16, 256
	_, s, m, x, _ := benchSetup(b, n)
	f, _ := m.Function("reduce")
	grid, err := module.MaxCooperativeBlocks(f, block, block*4)
	if err != nil {
		b.Fatal(err)
	}
	y, err := buffer.New[float32](s.Device(), grid)
	if err != nil {
		b.Fatal(err)
	}
	defer y.Free()
	b.SetBytes(4 * n)
	for b.Loop() {
		if err := module.LaunchCooperativeKernel(f, gpu.D1(uint32(grid)), gpu.D1(block), block*4, s, x, int64(n), y, int64(grid), uint32(block*4)); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
}
