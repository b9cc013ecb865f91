package module_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A module dropped unloaded, with a launch of its kernel queued behind a
// host function, is unloaded by the backstop only after that launch: the
// kernel runs, then the count moves.
func TestBackstopUnloadsDroppedModule(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	x, err := buffer.FromSlice(dev, []float32{1, 1, 1, 1, 1, 1, 1, 1})
	require.NoError(t, err)
	defer func() { assert.NoError(t, x.Free()) }()
	gputest.Collect(func() bool { return false })
	before := core.Backstops()
	gate := make(chan struct{})
	func() {
		m, err := module.Load(dev, globalSet)
		require.NoError(t, err)
		g, err := module.GetGlobal[float32](m, "coef")
		require.NoError(t, err)
		require.NoError(t, g.CopyFrom([]float32{1, 2, 3, 4}))
		f, err := m.Function("test_scale_by_coef")
		require.NoError(t, err)
		require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
		require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(8), 0, x, int32(8)))
	}()
	for range 10 {
		runtime.GC()
		runtime.Gosched()
	}
	assert.Equal(t, before, core.Backstops(), "the module was unloaded under its queued launch")
	close(gate)
	require.True(t, gputest.Collect(func() bool { return core.Backstops() > before }), "the dropped module was not unloaded")
	assert.Equal(t, before+1, core.Backstops())
	require.NoError(t, s.Synchronize())
	out, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 1, 2, 3, 4}, out)
}

// An unloaded module is not unloaded again by the backstop.
func TestBackstopSkipsUnloadedModule(t *testing.T) {
	dev := setup(t)
	gputest.Collect(func() bool { return false })
	before := core.Backstops()
	func() {
		m, err := module.Load(dev, globalSet)
		require.NoError(t, err)
		require.NoError(t, m.Unload())
	}()
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "Unload left the backstop armed")
}
