package buffer_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Zero sizes follow HIP: every allocation call gives empty memory (Len 0,
// address 0, as hipMalloc(0) gives a null pointer), and every call takes
// it as empty.
func TestZeroSizes(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	type empty interface {
		buffer.Object
		Free() error
	}
	mk := map[string]func() (empty, error){
		"New":                 func() (empty, error) { return buffer.New[int32](dev, 0) },
		"FromSlice":           func() (empty, error) { return buffer.FromSlice(dev, []int32{}) },
		"NewHost":             func() (empty, error) { return buffer.NewHost[int32](dev, 0) },
		"NewManaged":          func() (empty, error) { return buffer.NewManaged[int32](dev, 0) },
		"NewAsync":            func() (empty, error) { return buffer.NewAsync[int32](s, 0) },
		"NewPitched width 0":  func() (empty, error) { return buffer.NewPitched[int32](dev, 0, 4) },
		"NewPitched height 0": func() (empty, error) { return buffer.NewPitched[int32](dev, 4, 0) },
		"NewPitched3D width":  func() (empty, error) { return buffer.NewPitched3D[int32](dev, buffer.Extent{Height: 2, Depth: 2}) },
		"NewPitched3D height": func() (empty, error) { return buffer.NewPitched3D[int32](dev, buffer.Extent{Width: 2, Depth: 2}) },
		"NewPitched3D depth":  func() (empty, error) { return buffer.NewPitched3D[int32](dev, buffer.Extent{Width: 2, Height: 2}) },
	}
	one := must[*buffer.Buffer[int32]](t)(buffer.FromSlice(dev, []int32{7}))
	defer one.Free()
	for name, make := range mk {
		t.Run(name, func(t *testing.T) {
			b, err := make()
			require.NoError(t, err)
			assert.Zero(t, b.Len())
			assert.Zero(t, b.Bytes())
			assert.Equal(t, dev, b.Device())
			assert.NoError(t, buffer.Copy(b, 0, one, 0, 0), "an empty copy")
			assert.NoError(t, buffer.Copy(one, 0, b, 0, 0), "an empty copy")
			assert.ErrorIs(t, buffer.Copy(b, 0, one, 0, 1), gpu.ErrInvalidValue, "a copy into it")
			assert.NoError(t, stream.CopyToDevice(s, b, 0, []int32{}))
			assert.NoError(t, stream.CopyToHost(s, []int32{}, b, 0))
			assert.NoError(t, stream.Fill(s, b, int32(1)))
			assert.ErrorIs(t, stream.CopyToDevice(s, b, 0, []int32{1}), gpu.ErrInvalidValue)
			assert.NoError(t, buffer.Copy2D(buffer.ObjectView[int32](b, 0, 4), buffer.SliceView([]int32{}, 4), 0, 0))
			assert.ErrorIs(t, buffer.Copy2D(buffer.ObjectView[int32](b, 0, 4), buffer.SliceView([]int32{1}, 4), 1, 1), gpu.ErrInvalidValue)
			assert.NoError(t, launchAddOne(dev, b, 0), "a launch with it as an argument")
			require.NoError(t, s.Synchronize())
			require.NoError(t, b.Free())
			assert.ErrorIs(t, b.Free(), gpu.ErrInvalidValue, "a second Free")
			assert.ErrorIs(t, buffer.Copy(b, 0, one, 0, 0), gpu.ErrInvalidValue, "a freed empty buffer")
		})
	}

	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 0))
	assert.Zero(t, b.Ptr())
	require.NoError(t, b.CopyFrom(nil))
	require.NoError(t, b.CopyTo(nil))
	require.NoError(t, b.Fill(3))
	require.NoError(t, b.Memset(3))
	require.NoError(t, b.CopyFromBuffer(b))
	require.NoError(t, b.Transfer(dev))
	got, err := b.ToSlice()
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.ErrorIs(t, b.CopyFrom([]int32{1}), gpu.ErrInvalidValue)
	assert.Contains(t, b.String(), "empty buffer")
	require.NoError(t, b.FreeAsync(s))

	m := must[*buffer.Managed[int32]](t)(buffer.NewManaged[int32](dev, 0))
	ms, err := m.Slice()
	require.NoError(t, err)
	assert.Empty(t, ms)
	require.NoError(t, m.Advise(buffer.AdviseSetReadMostly, nil))
	require.NoError(t, stream.Prefetch(s, m, dev))
	require.NoError(t, s.Synchronize())
	require.NoError(t, m.Free())

	h := must[*buffer.Host[int32]](t)(buffer.NewHost[int32](dev, 0))
	assert.Empty(t, h.Slice())
	require.NoError(t, h.Free())

	p := must[*buffer.Pitched[int32]](t)(buffer.NewPitched[int32](dev, 0, 3))
	assert.Equal(t, 3, p.Height())
	require.NoError(t, buffer.Copy2D(p.View(), buffer.SliceView([]int32{}, 4), 0, 3))
	require.NoError(t, buffer.Memset2D(p.View(), 0, 0, 3))
	require.NoError(t, p.Free())

	for _, n := range []int{-1, math.MinInt} {
		_, err := buffer.New[int32](dev, n)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "count %d", n)
		_, err = buffer.NewManaged[int32](dev, n)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "count %d", n)
		_, err = buffer.NewAsync[int32](s, n)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "count %d", n)
	}
}
