package kernel_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// The kernels below are written as a user writes them, per work-item; the
// registrations are what hipgo-gen -go emits for them.

func saxpy(t kernel.Thread, alpha float32, x, y []float32) {
	if i := t.GlobalX(); i < len(y) {
		y[i] = alpha*x[i] + y[i]
	}
}

type saxpyArgs struct {
	Alpha float32
	X     rocr.ConstPtr[float32]
	XN    int64
	Y     rocr.Ptr[float32]
	YN    int64
}

var saxpyKernel = kernel.Define("saxpy", func(b *kernel.Block, a *saxpyArgs) {
	x, y := kernelimpl.ConstView(b, a.X, a.XN), kernelimpl.View(b, a.Y, a.YN)
	for i, n := 0, b.Threads(); i < n; i++ {
		saxpy(b.Thread(i), a.Alpha, x, y)
	}
})

// reduce is NVIDIA's reduce with a tree in dynamic shared memory down to a
// warp, then warp shuffles.
func reduce(t kernel.Thread, in, out []float32) {
	sdata := kernel.DynamicShared[float32](t)
	tid := t.ThreadIdx().X
	var sum float32
	for i := t.GlobalX(); i < len(in); i += t.BlockDim().X * t.GridDim().X {
		sum += in[i]
	}
	sdata[tid] = sum
	t.SyncThreads()
	for s := t.BlockDim().X / 2; s >= 32; s >>= 1 {
		if tid < s {
			sdata[tid] += sdata[tid+s]
		}
		t.SyncThreads()
	}
	if tid < 32 {
		sum = sdata[tid]
		for off := 16; off > 0; off >>= 1 {
			sum += kernel.ShflDown(t, sum, off)
		}
		if tid == 0 {
			out[t.BlockIdx().X] = sum
		}
	}
}

type reduceArgs struct {
	In   rocr.ConstPtr[float32]
	InN  int64
	Out  rocr.Ptr[float32]
	OutN int64
	Dyn  uint32
}

type reduceFrame struct{ in, out []float32 }

var reduceKernel = kernel.Define("reduce", func(b *kernel.Block, a *reduceArgs) {
	f := kernelimpl.Frame[reduceFrame](b)
	f.in, f.out = kernelimpl.ConstView(b, a.In, a.InN), kernelimpl.View(b, a.Out, a.OutN)
	b.Lockstep(func(t kernel.Thread) {
		f := kernelimpl.FrameOf[reduceFrame](t)
		reduce(t, f.in, f.out)
	})
}, kernelimpl.Lockstep())

// histogram counts bytes into 256 bins through shared-memory atomics.
func histogram(t kernel.Thread, data []uint8, bins []uint32) {
	local := kernel.Shared[[256]uint32](t)
	for i := t.ThreadIdx().X; i < 256; i += t.BlockDim().X {
		local[i] = 0
	}
	t.SyncThreads()
	for i := t.GlobalX(); i < len(data); i += t.BlockDim().X * t.GridDim().X {
		kernel.AtomicAdd(&local[data[i]], 1)
	}
	t.SyncThreads()
	for i := t.ThreadIdx().X; i < 256; i += t.BlockDim().X {
		kernel.AtomicAdd(&bins[i], local[i])
	}
}

type histogramArgs struct {
	Data  rocr.ConstPtr[uint8]
	DataN int64
	Bins  rocr.Ptr[uint32]
	BinsN int64
}

type histogramFrame struct {
	data []uint8
	bins []uint32
}

var histogramKernel = kernel.Define("histogram", func(b *kernel.Block, a *histogramArgs) {
	f := kernelimpl.Frame[histogramFrame](b)
	f.data, f.bins = kernelimpl.ConstView(b, a.Data, a.DataN), kernelimpl.View(b, a.Bins, a.BinsN)
	b.Lockstep(func(t kernel.Thread) {
		f := kernelimpl.FrameOf[histogramFrame](t)
		histogram(t, f.data, f.bins)
	})
}, kernelimpl.Lockstep(), kernel.StaticShared(1024))

func setup(t *testing.T) (*gpu.Device, *stream.Stream, *module.Module) {
	t.Helper()
	dev, err := gpu.Default()
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	m, err := module.Load(dev, kernel.NewSet("sdk-test", saxpyKernel, reduceKernel, histogramKernel))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	return dev, s, m
}

func TestReadOnlySignature(t *testing.T) {
	assert.True(t, saxpyKernel.Symbol().Args[1].ReadOnly)
	assert.False(t, saxpyKernel.Symbol().Args[3].ReadOnly)
}

func TestPerWorkItemKernel(t *testing.T) {
	dev, s, m := setup(t)
	const n = 1000
	hx, hy := make([]float32, n), make([]float32, n)
	for i := range hx {
		hx[i], hy[i] = float32(i), 1
	}
	x, err := buffer.FromSlice(dev, hx)
	require.NoError(t, err)
	defer x.Free()
	y, err := buffer.FromSlice(dev, hy)
	require.NoError(t, err)
	defer y.Free()
	f, err := m.Function("saxpy")
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(gpu.Blocks(n, 128)), gpu.D1(128), 0, s, float32(2), x, int64(n), y, int64(n)))
	require.NoError(t, s.Synchronize())
	got, err := y.ToSlice()
	require.NoError(t, err)
	for i := range got {
		assert.InDelta(t, 2*float32(i)+1, got[i], 0, "y[%d]", i)
	}
}

func TestLockstepReduction(t *testing.T) {
	dev, s, m := setup(t)
	const n, block, grid = 100_003, 256, 7
	h := make([]float32, n)
	var want float64
	for i := range h {
		h[i] = float32(i%17) - 8
		want += float64(h[i])
	}
	in, err := buffer.FromSlice(dev, h)
	require.NoError(t, err)
	defer in.Free()
	out, err := buffer.New[float32](dev, grid)
	require.NoError(t, err)
	defer out.Free()
	f, err := m.Function("reduce")
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(grid), gpu.D1(block), block*4, s, in, int64(n), out, int64(grid), uint32(block*4)))
	require.NoError(t, s.Synchronize())
	parts, err := out.ToSlice()
	require.NoError(t, err)
	var got float64
	for _, p := range parts {
		got += float64(p)
	}
	assert.InDelta(t, want, got, 1e-3*math.Abs(want)+1)
}

func TestSharedAtomicsHistogram(t *testing.T) {
	dev, s, m := setup(t)
	const n = 50_000
	h := make([]uint8, n)
	want := make([]uint32, 256)
	for i := range h {
		h[i] = uint8(i*7 + i/3)
		want[h[i]]++
	}
	data, err := buffer.FromSlice(dev, h)
	require.NoError(t, err)
	defer data.Free()
	bins, err := buffer.New[uint32](dev, 256)
	require.NoError(t, err)
	defer bins.Free()
	require.NoError(t, bins.Memset(0))
	f, err := m.Function("histogram")
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(4), gpu.D1(128), 0, s, data, int64(n), bins, int64(256)))
	require.NoError(t, s.Synchronize())
	got, err := bins.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestKernelIndexOutOfRangeFailsLaunch(t *testing.T) {
	dev, s, m := setup(t)
	x, err := buffer.New[float32](dev, 10)
	require.NoError(t, err)
	defer x.Free()
	f, err := m.Function("saxpy")
	require.NoError(t, err)
	// y claims 64 elements but x holds 10: x[i] goes out of range in the
	// kernel as it would in Go.
	y, err := buffer.New[float32](dev, 64)
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(64), 0, s, float32(1), x, int64(10), y, int64(64)))
	err = s.Synchronize()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "index out of range")
	assert.Contains(t, err.Error(), "sdk_test.go:24", "the line of x[i] in saxpy")
}

// A work-item's panic names the kernel's own line, in a barrier-free
// kernel and in a lockstep one.
func TestPanicNamesKernelLine(t *testing.T) {
	dev, s, m := setup(t)
	in, err := buffer.New[float32](dev, 10)
	require.NoError(t, err)
	defer in.Free()
	small, err := buffer.New[float32](dev, 10)
	require.NoError(t, err)
	defer small.Free()
	f, err := m.Function("reduce")
	require.NoError(t, err)
	// 32 blocks: out[blockIdx.x] of block 10 and later is past small.
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(32), gpu.D1(64), 64*4, s, in, int64(10), small, int64(10), uint32(64*4)))
	err = s.Synchronize()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sdk_test.go:66", "the line of out[...] = sum in reduce")
	assert.Contains(t, err.Error(), "index out of range")
}

// A worker keeps a dispatch's argument views for its other groups; the
// next dispatch, with the same kernarg slot and other buffers, gets its
// own.
func TestViewsPerDispatch(t *testing.T) {
	dev, s, m := setup(t)
	f, err := m.Function("saxpy")
	require.NoError(t, err)
	const n = 4096
	var ys []*buffer.Buffer[float32]
	for k := 0; k < 4; k++ {
		h := make([]float32, n)
		for i := range h {
			h[i] = float32(k)
		}
		x, err := buffer.FromSlice(dev, h)
		require.NoError(t, err)
		defer x.Free()
		y, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		defer y.Free()
		require.NoError(t, y.Fill(1))
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(n/64), gpu.D1(64), 0, s, float32(2), x, int64(n), y, int64(n)))
		ys = append(ys, y)
	}
	require.NoError(t, s.Synchronize())
	for k, y := range ys {
		got, err := y.ToSlice()
		require.NoError(t, err)
		for i := range got {
			if got[i] != 2*float32(k)+1 {
				t.Fatalf("launch %d: y[%d] = %v, want %v", k, i, got[i], 2*float32(k)+1)
			}
		}
	}
}

// ballot writes each work-item's warp vote on odd lanes, and whether any
// or all lanes of its warp voted.
func ballot(t kernel.Thread, out []uint64) {
	tid := t.ThreadIdx().X
	odd := t.Lane()%2 == 1
	m := kernel.Ballot(t, odd)
	if kernel.Any(t, tid == 3) {
		m |= 1 << 40
	}
	if kernel.All(t, tid < 1000) {
		m |= 1 << 41
	}
	out[tid] = m
}

type ballotArgs struct {
	Out  rocr.Ptr[uint64]
	OutN int64
}

type ballotFrame struct{ out []uint64 }

var ballotKernel = kernel.Define("ballot", func(b *kernel.Block, a *ballotArgs) {
	f := kernelimpl.Frame[ballotFrame](b)
	f.out = kernelimpl.View(b, a.Out, a.OutN)
	b.Lockstep(func(t kernel.Thread) { ballot(t, kernelimpl.FrameOf[ballotFrame](t).out) })
}, kernelimpl.Lockstep())

// Votes see every lane of the warp, and only lanes of the warp.
func TestBallotAnyAll(t *testing.T) {
	dev, err := gpu.Default()
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	m, err := module.Load(dev, kernel.NewSet("sdk-ballot", ballotKernel))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("ballot")
	require.NoError(t, err)
	out, err := buffer.New[uint64](dev, 64)
	require.NoError(t, err)
	defer out.Free()
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(64), 0, s, out, int64(64)))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	for tid, v := range got {
		want := uint64(0xAAAAAAAA) | 1<<41
		if tid < 32 {
			want |= 1 << 40 // work-item 3 is in the first warp only
		}
		assert.Equal(t, want, v, "work-item %d", tid)
	}
}
