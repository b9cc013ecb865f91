package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// coefs is a 2800-byte struct passed by value: past the bytes an
// Args holds in itself, within the 4 KB a kernarg segment holds.
type coefs struct{ V [700]float32 }

type bigArgs struct {
	C   coefs
	Out rocr.Ptr[float32]
	N   int32
}

// sumCoefs sets out[0] to the sum of c.V[:n].
var sumCoefs = kernel.Define("test_sum_coefs", func(g *kernel.Block, a *bigArgs) {
	if g.BlockIdx().X != 0 {
		return
	}
	var s float32
	for _, v := range a.C.V[:a.N] {
		s += v
	}
	a.Out.Slice(g, 0, 1)[0] = s
})

type tooBigArgs struct {
	C   [1100]float32 // 4400 bytes
	Out rocr.Ptr[float32]
}

var tooBig = kernel.Define("test_too_big", func(g *kernel.Block, a *tooBigArgs) {})

// Kernel parameters past 1 KB, up to the 4 KB HIP and CUDA allow, through
// every entry point; above it the error names both sizes.
func TestLargeParameters(t *testing.T) {
	m, f, out, s := loadBigParams(t)
	var c coefs
	var want float32
	for i := range c.V {
		c.V[i] = float32(i % 7)
		want += c.V[i]
	}
	read := func() float32 {
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		return got[0]
	}
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, c, out, int32(700)))
	assert.InDelta(t, want, read(), 0, "f.Launch")
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, c, out, int32(700)))
	assert.InDelta(t, want, read(), 0, "LaunchKernelGGL")
	// A kept Args: the 2800 bytes are past its own MaxValueBytes, in its block.
	var args module.Args
	module.ArgStruct(&args, c).Ptr(out).Int32(700)
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &args, 0, s))
	assert.InDelta(t, want, read(), 0, "LaunchKernel with Args")
	c.V[0] = 100
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &args, 0, s))
	assert.InDelta(t, want, read(), 0, "an Args keeps the bytes it was given")

	big, err := m.Function("test_too_big")
	if err == nil {
		err = big.Launch(s, gpu.D1(1), gpu.D1(1), 0, [1100]float32{}, out)
	}
	require.Error(t, err)
	assert.ErrorContains(t, err, "4408 bytes", "the kernel's parameters and the limit")
	assert.ErrorContains(t, err, "4096")
}

// A launch with a large struct allocates nothing once the pool is warm.
func TestLargeParametersAllocs(t *testing.T) {
	_, f, out, s := loadBigParams(t)
	var args module.Args
	var c coefs
	module.ArgStruct(&args, c).Ptr(out).Int32(1)
	launch := func() {
		if err := module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &args, 0, s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(50, launch), "launch of a kept Args with a 2800-byte struct")
}

// loadBigParams loads the large-parameter kernels on the test's device:
// the module, test_sum_coefs, a one-element output and a stream, each
// released when the test ends.
func loadBigParams(t *testing.T) (*module.Module, *module.Function, *buffer.Buffer[float32], *stream.Stream) {
	t.Helper()
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("big-params", sumCoefs, tooBig))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	f, err := m.Function("test_sum_coefs")
	require.NoError(t, err)
	out, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = out.Free() })
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return m, f, out, s
}
