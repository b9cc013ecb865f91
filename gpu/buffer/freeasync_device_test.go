package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// FreeAsync of a buffer of device 0's pool on a stream of device 1 is
// refused, naming both devices, and the buffer stays allocated: device
// 1's stream would return the memory to a pool it does not order. Freed
// on its own device's stream, it goes.
func TestFreeAsyncOtherDevicesStreamRefused(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	setup(t)
	dev0 := must[*gpu.Device](t)(gpu.Get(0))
	dev1 := must[*gpu.Device](t)(gpu.Get(1))
	s0 := must[*stream.Stream](t)(stream.New(dev0))
	s1 := must[*stream.Stream](t)(stream.New(dev1))
	b := must[*buffer.Buffer[int32]](t)(buffer.NewAsync[int32](s0, 64))
	require.NoError(t, stream.Fill(s0, b, int32(3)))
	err := b.FreeAsync(s1)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "device 0")
	assert.Contains(t, err.Error(), "device 1")
	got := must[[]int32](t)(b.ToSlice())
	assert.Equal(t, int32(3), got[63], "the buffer is still allocated")
	require.NoError(t, b.FreeAsync(s0))
	require.NoError(t, s0.Synchronize())
	require.NoError(t, s1.Synchronize())
}
