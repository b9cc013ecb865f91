package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
)

// A //hipgo:constant variable works on every cpu agent: each device's
// module finds it, and a kernel on the second device reads what was
// copied into it there.
func TestGlobalsOnEveryCPUAgent(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	require.NoError(t, gpu.Shutdown()) // the runtime opens again with two agents
	cputest.Device(t)                  // and is shut down at the test's end
	for ord := range 2 {
		dev, err := gpu.Get(ord)
		require.NoError(t, err)
		ld, err := faulty.Library.Load(dev)
		require.NoError(t, err, "device %d", ord)
		coef, err := module.GetGlobal[float32](ld.Module, "Coef")
		require.NoError(t, err, "device %d", ord)
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.FromSlice(dev, []float32{1, 1, 1, 1})
		require.NoError(t, err)
		want := []float32{float32(ord) + 0.5, 2, 3, 4}
		require.NoError(t, stream.CopyToDevice(s, coef, 0, want))
		require.NoError(t, faulty.LaunchScaleByCoef(s, gpu.D1(1), gpu.D1(4), 0, x))
		require.NoError(t, s.Synchronize())
		got, err := x.ToSlice()
		require.NoError(t, err)
		assert.InDeltaSlice(t, want, got, 0, "device %d", ord)
		require.NoError(t, x.Free())
		require.NoError(t, s.Destroy())
	}
}
