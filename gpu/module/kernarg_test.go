package module_test

import (
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
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Kernels whose parameters are an output and one array by value, which
// they copy out (exactly 4 KB, and 32,760 bytes: a pointer keeps a Go
// struct's size a multiple of 8), and kernels of bytes alone, one past
// 4 KB and one past CUDA 12.1's 32,764.
type (
	echo4K    struct{ V [1022]uint32 }
	echo4K1   struct{ V [4097]uint8 }
	echo32K   struct{ V [8188]uint32 }
	echo32K4  struct{ V [32765]uint8 }
	echo4KArg struct {
		Out rocr.Ptr[uint32]
		C   echo4K
	}
	echo4K1Arg struct{ C echo4K1 }
	echo32KArg struct {
		Out rocr.Ptr[uint32]
		C   echo32K
	}
	echo32K4Arg struct{ C echo32K4 }
)

var (
	echo4KK = kernel.Define("test_echo_4k", func(g *kernel.Block, a *echo4KArg) {
		copy(a.Out.Slice(g, 0, len(a.C.V)), a.C.V[:])
	})
	echo4K1K = kernel.Define("test_echo_4k1", func(g *kernel.Block, a *echo4K1Arg) {})
	echo32KK = kernel.Define("test_echo_32k", func(g *kernel.Block, a *echo32KArg) {
		copy(a.Out.Slice(g, 0, len(a.C.V)), a.C.V[:])
	})
	echo32K4K = kernel.Define("test_echo_32k4", func(g *kernel.Block, a *echo32K4Arg) {})
)

// echoSetup loads the echo kernels and gives a function of the set, an
// output of n elements and a stream.
func echoSetup[T any](t *testing.T, name string, n int) (*module.Function, *buffer.Buffer[T], *stream.Stream) {
	t.Helper()
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("echo", echo4KK, echo4K1K, echo32KK, echo32K4K))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	f, err := m.Function(name)
	require.NoError(t, err)
	out, err := buffer.New[T](dev, n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = out.Free() })
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return f, out, s
}

func pattern32(v []uint32, seed uint32) {
	for i := range v {
		v[i] = uint32(i)*2654435761 + seed
	}
}

func readAll[T any](t *testing.T, s *stream.Stream, out *buffer.Buffer[T]) []T {
	t.Helper()
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	return got
}

// The cpu agent takes the 4 KB HIP and CUDA allow everywhere, and refuses
// one byte more, naming both sizes.
func TestKernargLimitCPU(t *testing.T) {
	f, out, s := echoSetup[uint32](t, "test_echo_4k", 1022)
	assert.Equal(t, 4096, f.Attributes().KernargSize)
	var c echo4K
	pattern32(c.V[:], 1)
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, out, c))
	assert.Equal(t, c.V[:], readAll(t, s, out), "4096 bytes through Launch")
	pattern32(c.V[:], 2)
	var a module.Args
	module.ArgStruct(a.Ptr(out), c)
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	assert.Equal(t, c.V[:], readAll(t, s, out), "4096 bytes through Args")

	f1, _, s1 := echoSetup[uint8](t, "test_echo_4k1", 1)
	assert.Equal(t, 4097, f1.Attributes().KernargSize)
	err := f1.Launch(s1, gpu.D1(1), gpu.D1(1), 0, echo4K1{})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "4097 bytes")
	assert.ErrorContains(t, err, "4096 bytes")
	err = module.LaunchKernelGGL(f1, gpu.D1(1), gpu.D1(1), 0, s1, echo4K1{})
	assert.ErrorContains(t, err, "4097 bytes", "LaunchKernelGGL")
	assert.NoError(t, s1.Synchronize(), "nothing was queued")
}

// Past a queue slot, up to CUDA 12.1's 32,764 bytes, on an agent that
// takes them: the image goes to a kernarg area of the stream's, every
// byte reaches the kernel, directly, through a kept Args and through a
// graph replayed twice; 32,765 bytes are refused with both sizes.
func TestKernargAreas(t *testing.T) {
	f, out, s := echoSetup[uint32](t, "test_echo_32k", 8188)
	defer module.SetKernargLimit(f, 32764)()
	assert.Equal(t, 32760, f.Attributes().KernargSize)
	var c echo32K
	for seed := uint32(0); seed < 3; seed++ { // the area is reused
		pattern32(c.V[:], seed)
		require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, out, c))
		require.Equal(t, c.V[:], readAll(t, s, out), "Launch, round %d", seed)
	}
	var a module.Args
	pattern32(c.V[:], 7)
	module.ArgStruct(a.Ptr(out), c)
	for i := 0; i < 4; i++ { // several in flight, each with its own area
		require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	}
	assert.Equal(t, c.V[:], readAll(t, s, out), "kept Args")
	// Reset empties the Args' block too: refilling it many times fits.
	for i := 0; i < 5; i++ {
		a.Reset()
		pattern32(c.V[:], uint32(10+i))
		module.ArgStruct(a.Ptr(out), c)
	}
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	assert.Equal(t, c.V[:], readAll(t, s, out), "Args refilled after Reset")

	pattern32(c.V[:], 99)
	g := graph.New()
	defer g.Destroy()
	_, err := g.AddKernel(graph.Kernel{Func: f, Grid: gpu.D1(1), Block: gpu.D1(1), Args: []any{out, c}})
	require.NoError(t, err)
	x, err := g.Instantiate(s.Device())
	require.NoError(t, err)
	defer x.Destroy()
	for i := 0; i < 2; i++ {
		require.NoError(t, stream.Fill(s, out, uint32(0)))
		require.NoError(t, x.Launch(s))
		require.Equal(t, c.V[:], readAll(t, s, out), "graph replay %d", i)
	}

	big, _, sb := echoSetup[uint32](t, "test_echo_32k4", 1)
	defer module.SetKernargLimit(big, 32764)()
	err = big.Launch(sb, gpu.D1(1), gpu.D1(1), 0, echo32K4{})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "32765 bytes")
	assert.ErrorContains(t, err, "32764 bytes")
}

// A launch of a kept Args with a 32,760-byte parameter block allocates
// nothing once the stream has its area.
func TestKernargAreaAllocs(t *testing.T) {
	f, out, s := echoSetup[uint32](t, "test_echo_32k", 8188)
	defer module.SetKernargLimit(f, 32764)()
	var a module.Args
	var c echo32K
	module.ArgStruct(a.Ptr(out), c)
	launch := func() {
		if err := module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(50, launch), "launch of a 32,760-byte parameter block")
}

// A launch through a stream's area races with the stream's destruction
// and the module's unload: each fails cleanly or runs.
func TestKernargAreaRace(t *testing.T) {
	f, out, _ := echoSetup[uint32](t, "test_echo_32k", 8188)
	defer module.SetKernargLimit(f, 32764)()
	var c echo32K
	for i := 0; i < 20; i++ {
		s, err := stream.New(out.Device())
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() {
			var err error
			for j := 0; j < 5 && err == nil; j++ {
				err = f.Launch(s, gpu.D1(1), gpu.D1(1), 0, out, c)
			}
			done <- err
		}()
		derr := s.Destroy()
		if err := <-done; err != nil {
			assert.ErrorIs(t, err, gpu.ErrInvalidHandle, "a launch on a destroyed stream")
		}
		assert.NoError(t, derr)
	}
}
