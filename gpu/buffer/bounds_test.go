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

// A one-slice 3-D copy keeps to the slice height as deeper ones do: 3
// rows into slices of 2 would run into the next slice.
func TestCopy3DDepthOneSliceHeight(t *testing.T) {
	dev := setup(t)
	p := must[*buffer.Pitched3D[int32]](t)(buffer.NewPitched3D[int32](dev, buffer.Extent{Width: 4, Height: 2, Depth: 2}))
	defer p.Free()
	src := buffer.SliceVolume(make([]int32, 12), 16, 3)
	err := buffer.Copy3D(p.Volume(), src, buffer.Extent{Width: 4, Height: 3, Depth: 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "destination: rows [0, 3) cross the slice height of 2 rows")
	err = buffer.Copy3D(p.Volume().At(0, 1, 0), src, buffer.Extent{Width: 4, Height: 2, Depth: 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "cross the slice height")
	err = buffer.Copy3D(src, p.Volume(), buffer.Extent{Width: 4, Height: 3, Depth: 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue, "the source's slices too")
	err = buffer.Memset3D(p.Volume(), 0, buffer.Extent{Width: 4, Height: 3, Depth: 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue, "a fill")
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	err = stream.Copy3D(s, p.Volume(), src, buffer.Extent{Width: 4, Height: 3, Depth: 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue, "an async copy")
	require.NoError(t, buffer.Copy3D(p.Volume().At(0, 0, 1), src, buffer.Extent{Width: 4, Height: 2, Depth: 1}), "within the slice")
}

// A negative position is refused, not folded into another row or slice.
func TestNegativePosition(t *testing.T) {
	dev := setup(t)
	p := must[*buffer.Pitched3D[int32]](t)(buffer.NewPitched3D[int32](dev, buffer.Extent{Width: 4, Height: 2, Depth: 2}))
	defer p.Free()
	q := must[*buffer.Pitched[int32]](t)(buffer.NewPitched[int32](dev, 4, 2))
	defer q.Free()
	one := buffer.SliceVolume([]int32{1}, 4, 1)
	for _, v := range []buffer.Volume[int32]{
		p.Volume().At(0, -1, 1), p.Volume().At(-1, 0, 1), p.Volume().At(0, 0, -1), p.Volume().At(1, 1, 1).At(0, -1, 0),
	} {
		err := buffer.Copy3D(v, one, buffer.Extent{Width: 1, Height: 1, Depth: 1})
		require.ErrorIs(t, err, gpu.ErrInvalidValue)
		assert.Contains(t, err.Error(), "negative position")
	}
	for _, v := range []buffer.View[int32]{q.View().At(-1, 1), q.View().At(0, -1), buffer.SliceView(make([]int32, 8), 16).At(-1, 1)} {
		err := buffer.Copy2D(v, buffer.SliceView([]int32{1}, 4), 1, 1)
		require.ErrorIs(t, err, gpu.ErrInvalidValue)
		assert.Contains(t, err.Error(), "negative position")
	}
}

// A position past every memory is reported by the bound it breaks, not
// as a wrapped address.
func TestHugePosition(t *testing.T) {
	dev := setup(t)
	q := must[*buffer.Pitched[int32]](t)(buffer.NewPitched[int32](dev, 4, 2))
	defer q.Free()
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 8))
	defer b.Free()
	p := must[*buffer.Pitched3D[int32]](t)(buffer.NewPitched3D[int32](dev, buffer.Extent{Width: 4, Height: 2, Depth: 2}))
	defer p.Free()
	src := buffer.SliceView([]int32{1}, 4)
	for name, err := range map[string]error{
		"slice x":     buffer.Copy2D(buffer.SliceView(make([]int32, 8), 16).At(math.MaxInt, 0), src, 1, 1),
		"slice y":     buffer.Copy2D(buffer.SliceView(make([]int32, 8), 16).At(0, math.MaxInt/2), src, 1, 1),
		"buffer x":    buffer.Copy2D(buffer.ObjectView[int32](b, 0, 16).At(math.MaxInt, 0), src, 1, 1),
		"buffer off":  buffer.Copy2D(buffer.ObjectView[int32](b, math.MaxInt, 16), src, 1, 1),
		"pitched x":   buffer.Copy2D(q.View().At(math.MaxInt, 0), src, 1, 1),
		"pitched y":   buffer.Copy2D(q.View().At(0, math.MaxInt), src, 1, 1),
		"source x":    buffer.Copy2D(src, buffer.ObjectView[int32](b, 0, 16).At(math.MaxInt, 0), 1, 1),
		"volume z":    buffer.Copy3D(p.Volume().At(0, 0, math.MaxInt), buffer.SliceVolume([]int32{1}, 4, 1), buffer.Extent{Width: 1, Height: 1, Depth: 1}),
		"volume y":    buffer.Copy3D(p.Volume().At(0, math.MaxInt, 0), buffer.SliceVolume([]int32{1}, 4, 1), buffer.Extent{Width: 1, Height: 1, Depth: 1}),
		"volume x+y":  buffer.Copy3D(p.Volume().At(math.MaxInt/2, math.MaxInt/2, 1), buffer.SliceVolume([]int32{1}, 4, 1), buffer.Extent{Width: 1, Height: 1, Depth: 1}),
		"memset huge": buffer.Memset2D(buffer.ObjectView[int32](b, 0, 16).At(math.MaxInt, 0), 0, 1, 1),
	} {
		require.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		msg := err.Error()
		assert.Regexp(t, "past the end|outside the row width|outside the slice height", msg, name)
		assert.NotContains(t, msg, "-", "%s: %s", name, msg)
	}
}
