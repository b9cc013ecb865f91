package kernels_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

// The generated launchers pass their typed arguments straight to
// Function.Launch, which does not retain them: a launch and a synchronize
// allocate nothing once the stream's pools are warm.
func TestGeneratedLauncherAllocs(t *testing.T) {
	dev, s := device(t)
	const n = 4096
	a, b := upload(t, dev, make([]float32, n)), upload(t, dev, make([]float32, n))
	c, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	grid, block := gpu.D1(gpu.Blocks(n, kernels.ElementwiseBlock)), gpu.D1(kernels.ElementwiseBlock)
	launch := func() {
		require.NoError(t, kernels.LaunchVectorAdd(s, grid, block, 0, a, b, c, n))
		require.NoError(t, s.Synchronize())
	}
	for range 10 {
		launch()
	}
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(100, launch), "LaunchVectorAdd + Synchronize allocations")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = kernels.Empty(s); _ = s.Synchronize() }), "Empty + Synchronize allocations")
	// HIP's own call, ...any and all, allocates nothing either.
	set, err := kernels.Load(dev)
	require.NoError(t, err)
	ggl := func() {
		require.NoError(t, module.LaunchKernelGGL(set.VectorAdd, grid, block, 0, s, a, b, c, int32(n)))
		require.NoError(t, s.Synchronize())
	}
	assert.Zero(t, testing.AllocsPerRun(100, ggl), "LaunchKernelGGL + Synchronize allocations")
}

// The typed path checks each argument against the signature as strictly
// as LaunchKernelGGL: a wrong scalar, a wrong element type, a missing
// argument are errors naming the kernel and the argument.
func TestLaunchArgsChecks(t *testing.T) {
	dev, s := device(t)
	set, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	f32 := upload(t, dev, make([]float32, 64))
	i32, err := buffer.New[int32](dev, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer i32.Free()
	one := gpu.D1(1)
	cases := map[string]struct {
		args module.Args
		want string
	}{
		"float for int":     {*new(module.Args).ConstPtr(f32).ConstPtr(f32).Ptr(f32).Float32(1), "argument 3 (n"},
		"int32 buffer":      {*new(module.Args).ConstPtr(f32).ConstPtr(i32).Ptr(f32).Int32(1), "argument 1 (b"},
		"missing argument":  {*new(module.Args).ConstPtr(f32).ConstPtr(f32).Ptr(f32), "takes 4 arguments, got 3"},
		"value for pointer": {*new(module.Args).Int64(0).ConstPtr(f32).Ptr(f32).Int32(1), "argument 0 (a"},
	}
	for name, c := range cases {
		err := set.VectorAdd.LaunchArgs(s, one, one, 0, &c.args)
		if !errors.Is(err, gpu.ErrInvalidValue) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "vector_add") {
			t.Errorf("%s: %v, want an invalid value naming vector_add and %q", name, err, c.want)
		}
	}
	var many module.Args
	for range module.MaxArgs + 1 {
		many.Int32(0)
	}
	if err := set.VectorAdd.LaunchArgs(s, one, one, 0, &many); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("too many arguments: %v", err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

// The generated launchers check what the compiler cannot: a nil stream or
// buffer is an error naming the kernel, and nothing is queued.
func TestGeneratedLauncherChecks(t *testing.T) {
	dev, s := device(t)
	a := upload(t, dev, make([]float32, 64))
	if err := kernels.LaunchFillF32(nil, gpu.D1(1), gpu.D1(64), 0, a, 1, 64); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("nil stream: %v", err)
	}
	if err := kernels.LaunchFillF32(s, gpu.D1(1), gpu.D1(64), 0, nil, 1, 64); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("nil buffer: %v", err)
	} else {
		t.Log(err)
	}
	if err := kernels.LaunchFillF32(s, gpu.D1(1), gpu.D1(64), 0, a, 3, 64); err != nil {
		t.Fatal(err)
	}
	for i, v := range download(t, s, a) {
		if v != 3 {
			t.Fatalf("fill_f32[%d] = %v", i, v)
		}
	}
	lib, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	if lib.FillF32 == nil || lib.Functions.Sgemm == nil || lib.FillF32.Name() != "fill_f32" {
		t.Errorf("Load: %+v", lib.Functions)
	}
}

// hostBufferAdd launches c = a + b, n elements, with a and c pinned host
// buffers and b a device buffer of twos, and synchronizes.
func hostBufferAdd(t *testing.T, n int) (launch func(), c *buffer.Host[float32]) {
	dev, s := device(t)
	a, err := buffer.NewHost[float32](dev, n)
	require.NoError(t, err)
	b := upload(t, dev, make([]float32, n))
	require.NoError(t, b.Fill(2))
	c, err = buffer.NewHost[float32](dev, n)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, x := range []interface{ Free() error }{a, b, c} {
			assert.NoError(t, x.Free())
		}
	})
	for i := range a.Slice() {
		a.Slice()[i] = float32(i)
	}
	grid, block := gpu.D1(gpu.Blocks(n, kernels.ElementwiseBlock)), gpu.D1(kernels.ElementwiseBlock)
	return func() {
		require.NoError(t, kernels.LaunchVectorAdd(s, grid, block, 0, a, b, c, int32(n)))
		require.NoError(t, s.Synchronize())
	}, c
}

// Pinned host buffers pass to the typed launchers wherever device buffers
// do, mixed with them.
func TestGeneratedLauncherHostBuffers(t *testing.T) {
	launch, c := hostBufferAdd(t, 1000)
	launch()
	for i, v := range c.Slice() {
		if v != float32(i)+2 {
			t.Fatalf("c[%d] = %v, want %v", i, v, float32(i)+2)
		}
	}
}

// A launch with pinned host buffers allocates nothing either.
func TestGeneratedLauncherHostBufferAllocs(t *testing.T) {
	launch, _ := hostBufferAdd(t, 1000)
	launch()
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(50, launch), "LaunchVectorAdd with host buffers: allocations")
}
