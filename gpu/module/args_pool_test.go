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

// manyArgs has more parameters than an Args holds in itself.
type manyArgs struct {
	Out                                    rocr.Ptr[int32]
	A0, A1, A2, A3, A4, A5, A6, A7, A8, A9 int32
	B0, B1, B2, B3, B4, B5, B6, B7, B8, B9 int32
}

// sumMany sets out[0] to the sum of its twenty int32 parameters.
var sumMany = kernel.Define("test_sum_many", func(g *kernel.Block, a *manyArgs) {
	if g.BlockIdx().X != 0 {
		return
	}
	a.Out.Slice(g, 0, 1)[0] = a.A0 + a.A1 + a.A2 + a.A3 + a.A4 + a.A5 + a.A6 + a.A7 + a.A8 + a.A9 +
		a.B0 + a.B1 + a.B2 + a.B3 + a.B4 + a.B5 + a.B6 + a.B7 + a.B8 + a.B9
})

// fillMany adds out and twenty values base..base+19 to a.
func fillMany(a *module.Args, out *buffer.Buffer[int32], base int32) *module.Args {
	a.Ptr(out)
	for i := range int32(20) {
		a.Int32(base + i)
	}
	return a
}

// Arguments past an Args' own storage move to a pooled block, in order,
// and a kept Args launches them again; Release empties it.
func TestArgsPastInline(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("many", sumMany))
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	f, err := m.Function("test_sum_many")
	require.NoError(t, err)
	out, err := buffer.New[int32](dev, 1)
	require.NoError(t, err)
	t.Cleanup(func() { _ = out.Free() })
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	read := func() int32 {
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		return got[0]
	}
	var a module.Args
	require.Greater(t, 21, module.InlineArgs, "the test passes more than an Args holds in itself")
	fillMany(&a, out, 1)
	assert.Equal(t, 21, a.Len())
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	assert.Equal(t, int32(210), read(), "1+...+20")
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	assert.Equal(t, int32(210), read(), "a kept Args launched again")
	a.Reset()
	fillMany(&a, out, 2)
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s))
	assert.Equal(t, int32(230), read(), "Reset and refilled")
	a.Release()
	assert.Zero(t, a.Len(), "Release empties the Args")
	fillMany(&a, out, 3)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(1), 0, s, out, int32(1), int32(2), int32(3), int32(4), int32(5),
		int32(6), int32(7), int32(8), int32(9), int32(10), int32(11), int32(12), int32(13), int32(14), int32(15), int32(16),
		int32(17), int32(18), int32(19), int32(20)))
	assert.Equal(t, int32(210), read(), "LaunchKernelGGL")
	a.Release()
	a.Release() // twice is harmless
	var nilArgs *module.Args
	nilArgs.Release()
}

// An Args declared per launch, as generated launchers do, allocates
// nothing when it is released after the launch: its blocks (a 2800-byte
// struct, more arguments than it holds) go back to their pools.
func TestArgsPerLaunchAllocs(t *testing.T) {
	_, f, out, s := loadBigParams(t)
	var c coefs
	for i := range c.V {
		c.V[i] = 1
	}
	launch := func() {
		var a module.Args
		module.ArgStruct(&a, c).Ptr(out).Int32(700)
		err := module.LaunchKernel(f, gpu.D1(1), gpu.D1(1), &a, 0, s)
		a.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	got, err := out.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, float32(700), got[0], 0)
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(100, launch), "per-launch Args with a 2800-byte struct, released")
}
