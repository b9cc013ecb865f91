package buffer_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A 2-D end under test: its view, and linear access to all its memory.
type end2D struct {
	view  buffer.View[float32]
	pitch int // elements
	load  func([]float32)
	read  func() []float32
	free  func()
}

const rows2D, cols2D = 6, 7

func makeEnd(t *testing.T, dev *gpu.Device, kind string) end2D {
	switch kind {
	case "slice":
		s := make([]float32, 9*rows2D)
		return end2D{view: buffer.SliceView(s, 9*4), pitch: 9, load: func(v []float32) { copy(s, v) }, read: func() []float32 { return s }, free: func() {}}
	case "host":
		h, err := buffer.NewHost[float32](dev, 10*rows2D)
		require.NoError(t, err)
		return end2D{view: buffer.ObjectView[float32](h, 0, 10*4), pitch: 10, load: func(v []float32) { copy(h.Slice(), v) },
			read: func() []float32 { return append([]float32(nil), h.Slice()...) }, free: func() { assert.NoError(t, h.Free()) }}
	case "buffer":
		b, err := buffer.New[float32](dev, 8*rows2D)
		require.NoError(t, err)
		return end2D{view: buffer.ObjectView[float32](b, 0, 8*4), pitch: 8, load: func(v []float32) { require.NoError(t, b.CopyFrom(v)) },
			read: func() []float32 { s, err := b.ToSlice(); require.NoError(t, err); return s }, free: func() { assert.NoError(t, b.Free()) }}
	case "pitched":
		p, err := buffer.NewPitched[float32](dev, cols2D, rows2D)
		require.NoError(t, err)
		tmp, err := buffer.New[float32](dev, p.Len())
		require.NoError(t, err)
		return end2D{view: p.View(), pitch: p.Pitch() / 4,
			load: func(v []float32) {
				require.NoError(t, tmp.CopyFrom(v))
				require.NoError(t, buffer.Copy(p, 0, tmp, 0, p.Len()))
			},
			read: func() []float32 {
				require.NoError(t, buffer.Copy(tmp, 0, p, 0, p.Len()))
				s, err := tmp.ToSlice()
				require.NoError(t, err)
				return s
			},
			free: func() { assert.NoError(t, p.Free()); assert.NoError(t, tmp.Free()) }}
	}
	t.Fatalf("unknown end %s", kind)
	return end2D{}
}

// Every pair of ends, synchronously and on a stream: a 5 x 4 sub-matrix
// from (1, 1) of the source lands at (2, 1) of the destination, and nothing
// else of the destination changes.
func TestCopy2DEveryEnd(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	kinds := []string{"slice", "host", "buffer", "pitched"}
	const w, h = 5, 4
	for _, async := range []bool{false, true} {
		for _, dk := range kinds {
			for _, sk := range kinds {
				t.Run(fmt.Sprintf("%s<-%s/async=%v", dk, sk, async), func(t *testing.T) {
					dst, src := makeEnd(t, dev, dk), makeEnd(t, dev, sk)
					defer dst.free()
					defer src.free()
					sv := make([]float32, src.pitch*rows2D)
					for i := range sv {
						sv[i] = float32(i)
					}
					src.load(sv)
					dv := make([]float32, dst.pitch*rows2D)
					for i := range dv {
						dv[i] = -1
					}
					dst.load(dv)
					if async {
						require.NoError(t, stream.Copy2D(s, dst.view.At(2, 1), src.view.At(1, 1), w, h))
						require.NoError(t, s.Synchronize())
					} else {
						require.NoError(t, buffer.Copy2D(dst.view.At(2, 1), src.view.At(1, 1), w, h))
					}
					got := dst.read()
					for y := range rows2D {
						for x := range dst.pitch {
							want := float32(-1)
							if x >= 2 && x < 2+w && y >= 1 && y < 1+h {
								want = sv[y*src.pitch+x-1]
							}
							require.Equal(t, want, got[y*dst.pitch+x], "row %d column %d", y, x)
						}
					}
				})
			}
		}
	}
}

func TestCopy2DBounds(t *testing.T) {
	dev := setup(t)
	p, err := buffer.NewPitched[float32](dev, cols2D, rows2D)
	require.NoError(t, err)
	defer p.Free()
	assert.Equal(t, buffer.PitchAlign, p.Pitch())
	assert.Equal(t, [2]int{cols2D, rows2D}, [2]int{p.Width(), p.Height()})
	host := make([]float32, 4*rows2D)

	err = buffer.Copy2D(p.View(), buffer.SliceView(host, 3*4), 4, 2)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "source: row of 16 bytes exceeds the pitch of 12 bytes")

	big := make([]float32, 4*10)
	err = buffer.Copy2D(buffer.SliceView(big, 4*4), buffer.SliceView(host, 4*4), 4, rows2D+1)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "source: row 6 ends at byte 112, past the end of host memory of 96 bytes")

	err = buffer.Copy2D(p.View().At(4, 0), buffer.SliceView(host, 4*4), 4, 2)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "destination: columns [16, 32) bytes cross the row width of 28 bytes")

	err = buffer.Copy2D(buffer.SliceView(host, 4*4), p.View().At(0, 5), 4, 2)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "source: row 1 ends at byte 1552")

	err = buffer.Copy2D(p.View(), buffer.SliceView(host, 4*4), -1, 2)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	err = buffer.Copy2D(p.View(), buffer.SliceView(host, 0), 1, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "zero pitch")
	err = buffer.Copy2D(buffer.View[float32]{}, buffer.SliceView(host, 16), 1, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "no destination")
	ints, err := buffer.New[int32](dev, 64)
	require.NoError(t, err)
	defer ints.Free()
	err = buffer.Copy2D(buffer.ObjectView[float32](ints, 0, 16), buffer.SliceView(host, 16), 2, 2)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "elements of type float32")
	assert.NoError(t, buffer.Copy2D(p.View(), buffer.SliceView(host, 16), 0, 3), "an empty copy")

	require.NoError(t, p.Free())
	err = buffer.Copy2D(p.View(), buffer.SliceView(host, 16), 1, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "freed")
	_, err = buffer.NewPitched[float32](dev, -1, 2)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

func TestMemset2D(t *testing.T) {
	dev := setup(t)
	p, err := buffer.NewPitched[uint8](dev, 10, 3)
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, buffer.Memset2D(p.View(), 0, 10, 3))
	require.NoError(t, buffer.Memset2D(p.View().At(2, 1), 7, 3, 2))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, stream.Memset2D(s, p.View().At(0, 0), 9, 1, 3))
	require.NoError(t, s.Synchronize())
	got := make([]uint8, 10*3)
	require.NoError(t, buffer.Copy2D(buffer.SliceView(got, 10), p.View(), 10, 3))
	assert.Equal(t, []uint8{
		9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		9, 0, 7, 7, 7, 0, 0, 0, 0, 0,
		9, 0, 7, 7, 7, 0, 0, 0, 0, 0,
	}, got)
	err = buffer.Memset2D(buffer.SliceView(got, 10), 1, 1, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "Go memory is not a memset target")
}

// 2-D copies race with each other and with frees of their ends.
func TestCopy2DRaces(t *testing.T) {
	dev := setup(t)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			p, err := buffer.NewPitched[int32](dev, 16, 16)
			if !assert.NoError(t, err) {
				return
			}
			src := make([]int32, 16*16)
			for i := range src {
				src[i] = int32(g*1000 + i)
			}
			for range 20 {
				assert.NoError(t, stream.Copy2D(s, p.View(), buffer.SliceView(src, 64), 16, 16))
				out := make([]int32, 16*16)
				assert.NoError(t, buffer.Copy2D(buffer.SliceView(out, 64), p.View(), 16, 16))
				assert.Equal(t, src, out)
			}
			var inner sync.WaitGroup
			inner.Add(1)
			go func() {
				defer inner.Done()
				if err := stream.Copy2D(s, p.View(), buffer.SliceView(src, 64), 16, 16); err != nil {
					assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a copy that loses the race to Free")
				}
			}()
			assert.NoError(t, p.Free())
			inner.Wait()
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Wait()
}
