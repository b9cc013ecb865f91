package module_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Pair is C's `struct Pair { float x; double y; }`: 16 bytes, aligned to 8.
type Pair struct {
	X float32
	Y float64
}

// pairPTX is what nvcc writes for
// __global__ void pair_axpy(double *out, Pair p, int n) { out[i] = p.x * i + p.y; }
const pairPTX = `
.version 7.0
.target sm_80
.address_size 64

.visible .entry pair_axpy(
	.param .u64 pair_axpy_param_0,
	.param .align 8 .b8 pair_axpy_param_1[16],
	.param .u32 pair_axpy_param_2
)
{
	ret;
}
`

type pairArgs struct {
	Out rocr.Ptr[float64]
	P   Pair
	N   int32
}

// pairAxpy is the Go twin of the PTX kernel, for the cpu agent.
var pairAxpy = kernel.Define("pair_axpy", func(g *kernel.Block, a *pairArgs) {
	lo, hi := g.Span(0, int(a.N))
	out := a.Out.Slice(g, lo, hi)
	for i := range out {
		out[i] = float64(a.P.X)*float64(lo+i) + a.P.Y
	}
})

func pairSymbol(t *testing.T) hsa.KernelSymbol {
	spec, err := codeobj.Parse([]byte(pairPTX))
	require.NoError(t, err)
	obj, err := spec.Select("sm_80")
	require.NoError(t, err)
	c := module.FromCodeObject(obj, "pair.ptx")
	require.Len(t, c.Kernels, 1)
	return c.Kernels[0]
}

func TestStructByValueOnCPU(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, module.Library{pairPTX, kernel.NewSet("pair", pairAxpy)})
	require.NoError(t, err)
	f, err := m.Function("pair_axpy")
	require.NoError(t, err)
	assert.Equal(t, "pair_axpy(float64*, module_test.Pair, int32)", f.Signature())
	const n = 300
	out, err := buffer.New[float64](dev, n)
	require.NoError(t, err)
	p := Pair{X: 1.5, Y: -2}
	check := func(what string) {
		got, err := out.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.InDelta(t, 1.5*float64(i)-2, v, 1e-12, "%s: element %d", what, i)
		}
		require.NoError(t, out.Memset(0))
	}
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, nil, out, p, int32(n)))
	check("LaunchKernelGGL")

	var args module.Args
	module.ArgStruct(args.Ptr(out), p).Int32(n)
	require.NoError(t, f.LaunchArgs(nil, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, &args))
	check("ArgStruct")

	args.Reset()
	args.Ptr(out).Value(p).Int32(n)
	require.NoError(t, f.LaunchArgs(nil, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, &args))
	check("Value")

	// The same bytes as a [16]byte, as C code would memcpy them.
	var raw [16]byte
	binary.LittleEndian.PutUint32(raw[0:], math.Float32bits(1.5))
	binary.LittleEndian.PutUint64(raw[8:], math.Float64bits(-2))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, nil, out, raw, int32(n)))
	check("[16]byte")
	// A graph's kernel node packs the struct as a launch does, from []any
	// and from Args.
	for _, k := range []graph.Kernel{
		{Func: f, Grid: gpu.D1(gpu.Blocks(n, 64)), Block: gpu.D1(64), Args: []any{out, p, int32(n)}},
		{Func: f, Grid: gpu.D1(gpu.Blocks(n, 64)), Block: gpu.D1(64), Typed: &args},
	} {
		g := graph.New()
		_, err = g.AddKernel(k)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		require.NoError(t, e.Launch(nil))
		require.NoError(t, dev.Synchronize())
		check("graph kernel node")
		require.NoError(t, e.Destroy())
	}

	// Another struct of the same size is not the kernel's Pair.
	type other struct{ A, B float64 }
	err = module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, nil, out, other{}, int32(n))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "got module_test.other, the kernel takes module_test.Pair")

	require.NoError(t, out.Free())
}

// Typed launches of a struct allocate nothing.
func TestStructByValueAllocs(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, module.Library{pairPTX, kernel.NewSet("pair", pairAxpy)})
	require.NoError(t, err)
	f, err := m.Function("pair_axpy")
	require.NoError(t, err)
	const n = 300
	out, err := buffer.New[float64](dev, n)
	require.NoError(t, err)
	defer out.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	p := Pair{X: 1.5, Y: -2}
	var args module.Args
	launch := func() {
		args.Reset()
		module.ArgStruct(args.Ptr(out), p).Int32(n)
		require.NoError(t, f.LaunchArgs(s, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, &args))
		require.NoError(t, s.Synchronize())
	}
	for range 10 {
		launch()
	}
	testenv.SkipAllocsUnderRace(t)
	allocs := testing.AllocsPerRun(50, launch)
	got, err := out.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		require.InDelta(t, 1.5*float64(i)-2, v, 1e-12, "element %d", i)
	}
	assert.Zero(t, allocs, "LaunchArgs of a struct + Synchronize: allocations")
}

func TestStructByValuePTXChecks(t *testing.T) {
	dev := setup(t)
	sym := pairSymbol(t)
	out, err := buffer.New[float64](dev, 4)
	require.NoError(t, err)
	defer out.Free()

	ka, err := module.CheckArgs(dev, sym, out, Pair{X: 1.5, Y: -2}, int32(7))
	require.NoError(t, err)
	require.Len(t, ka, 28)
	assert.Equal(t, math.Float32bits(1.5), binary.LittleEndian.Uint32(ka[8:]))
	assert.Equal(t, math.Float64bits(-2), binary.LittleEndian.Uint64(ka[16:]))
	assert.Equal(t, uint32(7), binary.LittleEndian.Uint32(ka[24:]))
	_, err = module.CheckArgs(dev, sym, out, [16]byte{}, int32(7))
	assert.NoError(t, err, "bytes of the struct's size")

	type small struct{ X, Y float32 }
	type packed struct{ A, B, C, D float32 }
	type withPtr struct {
		X float32
		P *float64
	}
	type withString struct {
		S string
		N int64
	}
	cases := []struct {
		name string
		arg  any
		want string
	}{
		{"wrong size", small{}, "got module_test.small (8 bytes), the kernel takes 16 bytes"},
		{"wrong alignment", packed{}, "got module_test.packed aligned to 4 bytes, the kernel's parameter is aligned to 8"},
		{"pointer field", withPtr{}, "module_test.withPtr.P has type *float64: pointers, strings, slices, interfaces, maps, channels and functions cannot be passed by value"},
		{"string field", withString{}, "module_test.withString.S has type string"},
		{"scalar for struct", int64(1), "got int64 where the kernel takes a struct by value: pass a struct of its layout or a [16]byte"},
		{"wrong byte count", [12]byte{}, "got [12]uint8 (12 bytes), the kernel takes 16 bytes"},
	}
	for _, c := range cases {
		_, err := module.CheckArgs(dev, sym, out, c.arg, int32(7))
		if assert.ErrorIs(t, err, gpu.ErrInvalidValue, c.name) {
			assert.ErrorContains(t, err, "kernel pair_axpy argument 1 (pair_axpy_param_1, 16-byte struct aligned to 8)", c.name)
			assert.ErrorContains(t, err, c.want, c.name)
		}
	}
	// A struct where the kernel takes a scalar.
	_, err = module.CheckArgs(dev, sym, out, Pair{}, Pair{})
	assert.ErrorContains(t, err, "argument 2")
}

func TestDefineStructFields(t *testing.T) {
	assert.NotPanics(t, func() {
		kernel.Define("struct_ok", func(*kernel.Block, *struct {
			P Pair
			A [3]int32
		}) {
		})
	})
	assert.PanicsWithError(t, `kernel.Define "struct_ptr": field S: struct { X float32; P *float32 }.P has type *float32: pointers, strings, slices, interfaces, maps, channels and functions cannot be passed by value to a kernel`, func() {
		kernel.Define("struct_ptr", func(*kernel.Block, *struct {
			S struct {
				X float32
				P *float32
			}
		}) {
		})
	})
}

// AMDGPU metadata says by_value with a size (the loader estimates the
// alignment), a cubin only offset and size: a struct of that size is taken
// where it fits the offset, a scalar is not.
func TestStructByValueOtherSignatures(t *testing.T) {
	dev := setup(t)
	amd := hsa.KernelSymbol{Name: "pair_amd", KernargSize: 24, Args: []hsa.KernelArg{
		{Name: "p", TypeName: "Pair", Offset: 0, Size: 16, Align: 8, Kind: hsa.ArgByValue, ValueKind: "by_value"},
		{Name: "n", TypeName: "int", Offset: 16, Size: 4, Align: 4, Kind: hsa.ArgByValue, ValueKind: "by_value"},
	}}
	type quad struct{ A, B, C, D float32 } // aligned to 4: the estimate of 8 is not binding
	for _, arg := range []any{Pair{X: 1}, quad{}, [16]byte{}} {
		_, err := module.CheckArgs(dev, amd, arg, int32(1))
		assert.NoError(t, err, "%T", arg)
	}
	_, err := module.CheckArgs(dev, amd, int64(1), int32(1))
	assert.ErrorContains(t, err, "kernel pair_amd argument 0 (p, 16-byte struct): got int64 where the kernel takes a struct by value")

	cubin := hsa.KernelSymbol{Name: "pair_cubin", KernargSize: 24, Args: []hsa.KernelArg{
		{Name: "n", Offset: 0, Size: 4, Align: 4, Kind: hsa.ArgByValue},
		{Name: "p", Offset: 8, Size: 16, Align: 8, Kind: hsa.ArgByValue},
	}}
	ka, err := module.CheckArgs(dev, cubin, int32(3), Pair{X: 2, Y: 4})
	require.NoError(t, err)
	assert.Equal(t, math.Float64bits(4), binary.LittleEndian.Uint64(ka[16:]))
	odd := hsa.KernelSymbol{Name: "odd", KernargSize: 20, Args: []hsa.KernelArg{
		{Name: "n", Offset: 0, Size: 4, Align: 4, Kind: hsa.ArgByValue},
		{Name: "p", Offset: 4, Size: 16, Align: 4, Kind: hsa.ArgByValue},
	}}
	_, err = module.CheckArgs(dev, odd, int32(3), Pair{})
	assert.ErrorContains(t, err, "got module_test.Pair aligned to 8 bytes, the kernel's parameter is aligned to 4")
}

// Struct arguments race-free from several goroutines: each its own Args,
// one cached layout.
func TestStructArgsConcurrent(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("pair", pairAxpy))
	require.NoError(t, err)
	f, err := m.Function("pair_axpy")
	require.NoError(t, err)
	const workers, n = 4, 64
	errs := make(chan error, workers)
	outs := make([]*buffer.Buffer[float64], workers)
	for w := range outs {
		outs[w], err = buffer.New[float64](dev, n)
		require.NoError(t, err)
	}
	for w := range workers {
		go func() {
			s, err := stream.New(dev)
			if err != nil {
				errs <- err
				return
			}
			defer s.Destroy()
			for range 20 {
				var a module.Args
				module.ArgStruct(a.Ptr(outs[w]), Pair{X: float32(w), Y: 1}).Int32(n)
				if err := f.LaunchArgs(s, gpu.D1(1), gpu.D1(n), 0, &a); err != nil {
					errs <- err
					return
				}
				if err := f.Launch(s, gpu.D1(1), gpu.D1(n), 0, outs[w], Pair{X: float32(w), Y: 1}, int32(n)); err != nil {
					errs <- err
					return
				}
			}
			errs <- s.Synchronize()
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
	for w, b := range outs {
		got, err := b.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			assert.InDelta(t, float64(w*i)+1, v, 1e-12)
		}
		require.NoError(t, b.Free())
	}
}
