package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type fillArgs struct {
	X rocr.Ptr[int32]
	N int32
}

// Two libraries each define "fill" with different behaviour.
var (
	fillOnes = kernel.Define("fill", func(g *kernel.Block, a *fillArgs) {
		lo, hi := g.Span(0, int(a.N))
		for i := range a.X.Slice(g, lo, hi) {
			*a.X.At(g, lo+i) = 1
		}
	})
	fillTwos = kernel.Define("fill", func(g *kernel.Block, a *fillArgs) {
		lo, hi := g.Span(0, int(a.N))
		x := a.X.Slice(g, lo, hi)
		for i := range x {
			x[i] = 2
		}
	})
)

func TestKernelNamesBelongToTheirSet(t *testing.T) {
	dev := setup(t)
	libA, err := module.Load(dev, kernel.NewSet("lib-a", fillOnes))
	require.NoError(t, err)
	libB, err := module.Load(dev, kernel.NewSet("lib-b", fillTwos))
	require.NoError(t, err)
	const n = 100
	for _, c := range []struct {
		mod  *module.Module
		want int32
	}{{libA, 1}, {libB, 2}, {libA, 1}} {
		f, err := c.mod.Function("fill")
		require.NoError(t, err)
		x, err := buffer.New[int32](dev, n)
		require.NoError(t, err)
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(4), gpu.D1(32), 0, nil, x, int32(n)))
		out, err := x.ToSlice()
		require.NoError(t, err)
		for i := range out {
			require.Equal(t, c.want, out[i], "element %d", i)
		}
		require.NoError(t, x.Free())
	}
	// Within one set a name is one kernel, as in a code object.
	_, err = module.Load(dev, kernel.NewSet("lib-ab", fillOnes, fillTwos))
	assert.ErrorContains(t, err, `two kernels named "fill"`)
}

type histArgs struct {
	In   rocr.ConstPtr[uint32]
	Bins rocr.Ptr[uint32]
	Sum  rocr.Ptr[float64]
	Lo   rocr.Ptr[int64]
	Hi   rocr.Ptr[int64]
	N    int32
	NBin int32
}

// histogram counts In into Bins with a per-group shared histogram flushed
// by atomic adds, the usual GPU pattern; it also sums, and finds the
// minimum and maximum, through float and integer atomics.
var histogram = kernel.Define("test_histogram", func(g *kernel.Block, a *histArgs) {
	local := kernel.GroupShared[uint32](g, 0, int(a.NBin))
	clear(local)
	lo, hi := g.Span(0, int(a.N))
	var sum float64
	for _, v := range a.In.Slice(g, lo, hi) {
		local[v%uint32(a.NBin)]++
		sum += float64(v)
		kernel.AtomicMin(a.Lo.At(g, 0), int64(v))
		kernel.AtomicMax(a.Hi.At(g, 0), int64(v))
	}
	for b, c := range local {
		if c != 0 {
			kernel.AtomicAdd(a.Bins.At(g, b), c)
		}
	}
	kernel.AtomicAdd(a.Sum.At(g, 0), sum)
}, kernel.StaticShared(64*4))

func TestAtomicHistogram(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("hist", histogram))
	require.NoError(t, err)
	f, err := m.Function("test_histogram")
	require.NoError(t, err)
	const n, nbin = 100_000, 64
	in := make([]uint32, n)
	want := make([]uint32, nbin)
	var wantSum float64
	for i := range in {
		in[i] = uint32(i*7919+13) % 1000
		want[in[i]%nbin]++
		wantSum += float64(in[i])
	}
	inBuf, err := buffer.FromSlice(dev, in)
	require.NoError(t, err)
	bins, err := buffer.New[uint32](dev, nbin)
	require.NoError(t, err)
	sum, err := buffer.FromSlice(dev, []float64{0})
	require.NoError(t, err)
	lo, err := buffer.FromSlice(dev, []int64{1 << 40})
	require.NoError(t, err)
	hi, err := buffer.FromSlice(dev, []int64{-1})
	require.NoError(t, err)
	// Many small groups so that many workers add into the same bins.
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, nil,
		inBuf, bins, sum, lo, hi, int32(n), int32(nbin)))
	got, err := bins.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	s, err := sum.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, wantSum, s[0], 1e-6) // integers: exact in float64
	l, err := lo.ToSlice()
	require.NoError(t, err)
	h, err := hi.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int64{0}, l)
	assert.Equal(t, []int64{999}, h)
}

type atomicArgs struct {
	I32 rocr.Ptr[int32]
	U32 rocr.Ptr[uint32]
	U64 rocr.Ptr[uint64]
	F32 rocr.Ptr[float32]
	Old rocr.Ptr[int64]
}

// atomicOps runs once (one work-item) and records what each atomic returned.
var atomicOps = kernel.Define("test_atomic_ops", func(g *kernel.Block, a *atomicArgs) {
	old := a.Old.Slice(g, 0, 8)
	old[0] = int64(kernel.AtomicCAS(a.I32.At(g, 0), 5, 9))                 // holds 5: swapped
	old[1] = int64(kernel.AtomicCAS(a.I32.At(g, 0), 5, 11))                // holds 9: not swapped
	old[2] = int64(kernel.AtomicExch(a.U32.At(g, 0), 7))                   // held 3
	old[3] = int64(kernel.AtomicAdd(a.U64.At(g, 0), 1<<40))                // held 1
	old[4] = int64(kernel.AtomicMin(a.I32.At(g, 0), -4))                   // held 9
	old[5] = int64(kernel.AtomicAdd(a.F32.At(g, 0), 0.25) * 100)           // held 1.5
	old[6] = int64(kernel.AtomicMax(a.U32.At(g, 0), 2))                    // held 7: stays
	old[7] = int64(kernel.AtomicExch(rocr.Ptr[int32](a.U32).At(g, 0), -1)) // a view as int32
})

func TestAtomicOperations(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("atomics", atomicOps))
	require.NoError(t, err)
	f, err := m.Function("test_atomic_ops")
	require.NoError(t, err)
	i32, _ := buffer.FromSlice(dev, []int32{5})
	u32, _ := buffer.FromSlice(dev, []uint32{3})
	u64, _ := buffer.FromSlice(dev, []uint64{1})
	f32, _ := buffer.FromSlice(dev, []float32{1.5})
	old, err := buffer.New[int64](dev, 8)
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, nil, i32, u32, u64, f32, old))
	o, err := old.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int64{5, 9, 3, 1, 9, 150, 7, 7}, o)
	gi, _ := i32.ToSlice()
	gu, _ := u32.ToSlice()
	g64, _ := u64.ToSlice()
	gf, _ := f32.ToSlice()
	assert.Equal(t, int32(-4), gi[0])
	assert.Equal(t, uint32(0xffffffff), gu[0])
	assert.Equal(t, uint64(1+1<<40), g64[0])
	assert.InDelta(t, 1.75, gf[0], 1e-6)
}

type misuseArgs struct {
	X    rocr.Ptr[int32]
	Mode int32
}

// misuse makes the mistakes Shared and the atomics refuse: they fail the
// dispatch with a message, not the process.
var misuse = kernel.Define("test_shared_atomic_misuse", func(g *kernel.Block, a *misuseArgs) {
	switch a.Mode {
	case 0:
		kernel.GroupShared[float64](g, 4, 1) // misaligned
	case 1:
		kernel.GroupShared[int32](g, 0, 9) // past the 32-byte segment
	case 2:
		kernel.AtomicAdd(rocr.Ptr[int32](a.X.Addr()+2).At(g, 0), 1) // misaligned word
	case 3:
		kernel.AtomicAdd(a.X.At(g, 4), 1) // past the buffer
	}
}, kernel.StaticShared(32))

func TestSharedAndAtomicMisuse(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("misuse", misuse))
	require.NoError(t, err)
	f, err := m.Function("test_shared_atomic_misuse")
	require.NoError(t, err)
	for mode, want := range []string{
		"group memory offset 4 is not aligned to 8 bytes for float64",
		"group memory [0, 36) outside the 32-byte group segment",
		"atomic on int32 at",
		"",
	} {
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.New[int32](dev, 4)
		require.NoError(t, err)
		require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x, int32(mode)))
		err = s.Synchronize()
		assert.Error(t, err, "mode %d", mode)
		if want != "" {
			assert.ErrorContains(t, err, want, "mode %d", mode)
		}
		_ = s.Destroy()
		_ = x.Free()
	}
}
