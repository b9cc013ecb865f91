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

// A 3-D end under test: its volume, its pitch and slice height in
// elements and rows, and linear access to all its memory.
type end3D struct {
	vol   buffer.Volume[float32]
	pitch int
	rows  int
	load  func([]float32)
	read  func() []float32
	free  func()
}

const cols3D, rows3D, slices3D = 7, 5, 4

func makeEnd3D(t *testing.T, dev *gpu.Device, kind string) end3D {
	switch kind {
	case "slice":
		s := make([]float32, 9*6*slices3D)
		return end3D{vol: buffer.SliceVolume(s, 9*4, 6), pitch: 9, rows: 6, load: func(v []float32) { copy(s, v) }, read: func() []float32 { return s }, free: func() {}}
	case "host":
		h, err := buffer.NewHost[float32](dev, 10*rows3D*slices3D)
		require.NoError(t, err)
		return end3D{vol: buffer.ObjectVolume[float32](h, 0, 10*4, rows3D), pitch: 10, rows: rows3D, load: func(v []float32) { copy(h.Slice(), v) },
			read: func() []float32 { return append([]float32(nil), h.Slice()...) }, free: func() { assert.NoError(t, h.Free()) }}
	case "buffer":
		b, err := buffer.New[float32](dev, 8*7*slices3D)
		require.NoError(t, err)
		return end3D{vol: buffer.ObjectVolume[float32](b, 0, 8*4, 7), pitch: 8, rows: 7, load: func(v []float32) { require.NoError(t, b.CopyFrom(v)) },
			read: func() []float32 { s, err := b.ToSlice(); require.NoError(t, err); return s }, free: func() { assert.NoError(t, b.Free()) }}
	case "pitched3d":
		p, err := buffer.NewPitched3D[float32](dev, buffer.Extent{Width: cols3D, Height: rows3D, Depth: slices3D})
		require.NoError(t, err)
		tmp, err := buffer.New[float32](dev, p.Len())
		require.NoError(t, err)
		return end3D{vol: p.Volume(), pitch: p.Pitch() / 4, rows: rows3D,
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
	return end3D{}
}

// Every pair of ends, synchronously and on a stream: a 5 x 3 x 2 box from
// (1, 1, 1) of the source lands at (2, 1, 2) of the destination, and
// nothing else of the destination changes.
func TestCopy3DEveryEnd(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	kinds := []string{"slice", "host", "buffer", "pitched3d"}
	ext := buffer.Extent{Width: 5, Height: 3, Depth: 2}
	for _, async := range []bool{false, true} {
		for _, dk := range kinds {
			for _, sk := range kinds {
				t.Run(fmt.Sprintf("%s<-%s/async=%v", dk, sk, async), func(t *testing.T) {
					dst, src := makeEnd3D(t, dev, dk), makeEnd3D(t, dev, sk)
					defer dst.free()
					defer src.free()
					sv := make([]float32, len(src.read()))
					for i := range sv {
						sv[i] = float32(i)
					}
					src.load(sv)
					dv := make([]float32, len(dst.read()))
					for i := range dv {
						dv[i] = -1
					}
					dst.load(dv)
					if async {
						require.NoError(t, stream.Copy3D(s, dst.vol.At(2, 1, 2), src.vol.At(1, 1, 1), ext))
						require.NoError(t, s.Synchronize())
					} else {
						require.NoError(t, buffer.Copy3D(dst.vol.At(2, 1, 2), src.vol.At(1, 1, 1), ext))
					}
					got := dst.read()
					for i, v := range got {
						z, y, x := i/(dst.pitch*dst.rows), i/dst.pitch%dst.rows, i%dst.pitch
						want := float32(-1)
						if x >= 2 && x < 2+ext.Width && y >= 1 && y < 1+ext.Height && z >= 2 && z < 2+ext.Depth {
							want = sv[((z-1)*src.rows+y)*src.pitch+x-1]
						}
						require.Equal(t, want, v, "slice %d row %d column %d", z, y, x)
					}
				})
			}
		}
	}
}

func TestCopy3DBounds(t *testing.T) {
	dev := setup(t)
	ext := buffer.Extent{Width: cols3D, Height: rows3D, Depth: slices3D}
	p, err := buffer.NewPitched3D[float32](dev, ext)
	require.NoError(t, err)
	defer p.Free()
	assert.Equal(t, buffer.PitchAlign, p.Pitch())
	assert.Equal(t, buffer.PitchAlign*rows3D, p.SlicePitch())
	assert.Equal(t, ext, p.Extent())
	assert.Equal(t, buffer.PitchAlign/4*rows3D*slices3D, p.Len())
	host := make([]float32, 8*rows3D*slices3D)
	hv := buffer.SliceVolume(host, 8*4, rows3D)

	err = buffer.Copy3D(p.Volume(), buffer.SliceVolume(host, 4*4, rows3D), buffer.Extent{Width: 5, Height: 2, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "memcpy 3d: source: row of 20 bytes exceeds the pitch of 16 bytes")

	err = buffer.Copy3D(p.Volume().At(0, 3, 0), hv, buffer.Extent{Width: 2, Height: 3, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "destination: rows [3, 6) cross the slice height of 5 rows")

	err = buffer.Copy3D(p.Volume().At(5, 0, 0), hv, buffer.Extent{Width: 3, Height: 1, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "destination: columns [20, 32) bytes cross the row width of 28 bytes")

	err = buffer.Copy3D(hv, p.Volume().At(0, 0, 3), buffer.Extent{Width: 2, Height: 2, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "source: slice 1 row 1 ends at byte 5384, past the end of buffer")

	err = buffer.Copy3D(p.Volume(), hv, buffer.Extent{Width: 2, Height: 2, Depth: slices3D + 1})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "slice 4 row 1 ends at byte")

	err = buffer.Copy3D(p.Volume(), buffer.SliceVolume(host, 8*4, 0), buffer.Extent{Width: 2, Height: 2, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "source: slice height 0 rows: want a positive height for 2 slices")

	err = buffer.Copy3D(p.Volume(), hv, buffer.Extent{Width: -1, Height: 2, Depth: 2})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	err = buffer.Copy3D(buffer.Volume[float32]{}, hv, buffer.Extent{Width: 1, Height: 1, Depth: 1})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "no destination")
	err = buffer.Memset3D(hv, 1, buffer.Extent{Width: 1, Height: 1, Depth: 1})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "Go memory is not a memset target")
	ints, err := buffer.New[int32](dev, 64)
	require.NoError(t, err)
	defer ints.Free()
	err = buffer.Copy3D(buffer.ObjectVolume[float32](ints, 0, 16, 2), hv, buffer.Extent{Width: 2, Height: 2, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "elements of type float32")
	assert.NoError(t, buffer.Copy3D(p.Volume(), hv, buffer.Extent{Width: 3, Height: 3, Depth: 0}), "an empty copy")

	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	err = stream.Copy3D(s, p.Volume().At(0, 4, 0), hv, buffer.Extent{Width: 2, Height: 2, Depth: 2})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "memcpy 3d async: destination: rows [4, 6) cross the slice height of 5 rows")
	assert.ErrorIs(t, stream.Copy3D(nil, p.Volume(), hv, buffer.Extent{Width: 1, Height: 1, Depth: 1}), gpu.ErrInvalidHandle)

	require.NoError(t, p.Free())
	err = buffer.Copy3D(p.Volume(), hv, buffer.Extent{Width: 1, Height: 1, Depth: 1})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "freed")
	_, err = buffer.NewPitched3D[float32](dev, buffer.Extent{Width: 1, Height: -1, Depth: 1})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = buffer.NewPitched3D[float32](dev, buffer.Extent{Width: 1 << 30, Height: 1 << 20, Depth: 1 << 20})
	assert.ErrorIs(t, err, gpu.ErrOutOfMemory, "an extent whose bytes overflow")
	_, err = buffer.NewPitched[float32](dev, 1<<30, 1<<40)
	assert.ErrorIs(t, err, gpu.ErrOutOfMemory, "rows whose bytes overflow")
	_, err = buffer.NewPitched[float32](dev, 1<<60, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a row wider than any pitch")
}

// A 3-D copy of depth 1 is the 2-D copy, and a 3-D copy is the 2-D copy
// of each of its slices: the two paths agree byte for byte.
func TestCopy3DMatches2D(t *testing.T) {
	dev := setup(t)
	ext := buffer.Extent{Width: 9, Height: 6, Depth: 3}
	src, err := buffer.NewPitched3D[int32](dev, ext)
	require.NoError(t, err)
	defer src.Free()
	a, err := buffer.NewPitched3D[int32](dev, ext)
	require.NoError(t, err)
	defer a.Free()
	b, err := buffer.NewPitched3D[int32](dev, ext)
	require.NoError(t, err)
	defer b.Free()
	n := src.Len()
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i*7 + 1)
	}
	rowPitch := src.Pitch() / 4
	require.NoError(t, buffer.Copy3D(src.Volume(), buffer.SliceVolume(vals, src.Pitch(), ext.Height), ext))
	require.NoError(t, buffer.Memset3D(a.Volume(), 0, ext))
	require.NoError(t, buffer.Memset3D(b.Volume(), 0, ext))

	box := buffer.Extent{Width: 6, Height: 4, Depth: 2}
	require.NoError(t, buffer.Copy3D(a.Volume().At(2, 1, 1), src.Volume().At(1, 2, 0), box))
	for z := range box.Depth {
		dst := buffer.ObjectView[int32](b, ((1+z)*ext.Height+1)*rowPitch+2, b.Pitch())
		sv := buffer.ObjectView[int32](src, (z*ext.Height+2)*rowPitch+1, src.Pitch())
		require.NoError(t, buffer.Copy2D(dst, sv, box.Width, box.Height))
	}
	ga, gb := make([]int32, n), make([]int32, n)
	require.NoError(t, buffer.Copy3D(buffer.SliceVolume(ga, a.Pitch(), ext.Height), a.Volume(), ext))
	require.NoError(t, buffer.Copy3D(buffer.SliceVolume(gb, b.Pitch(), ext.Height), b.Volume(), ext))
	assert.Equal(t, gb, ga)
	assert.Equal(t, vals[(0*ext.Height+2)*rowPitch+1], ga[(1*ext.Height+1)*rowPitch+2], "first element of the box")

	// Depth 1 reads as the 2-D copy of the same rows.
	out3, out2 := make([]int32, 6*4), make([]int32, 6*4)
	require.NoError(t, buffer.Copy3D(buffer.SliceVolume(out3, 6*4, 4), src.Volume().At(1, 1, 2), buffer.Extent{Width: 6, Height: 4, Depth: 1}))
	require.NoError(t, buffer.Copy2D(buffer.SliceView(out2, 6*4), buffer.ObjectView[int32](src, (2*ext.Height+1)*rowPitch+1, src.Pitch()), 6, 4))
	assert.Equal(t, out2, out3)
	assert.Equal(t, vals[(2*ext.Height+1)*rowPitch+1], out3[0])
}

func TestMemset3D(t *testing.T) {
	dev := setup(t)
	ext := buffer.Extent{Width: 4, Height: 3, Depth: 2}
	p, err := buffer.NewPitched3D[uint8](dev, ext)
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, buffer.Memset3D(p.Volume(), 0, ext))
	require.NoError(t, buffer.Memset3D(p.Volume().At(1, 1, 1), 7, buffer.Extent{Width: 2, Height: 2, Depth: 1}))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, stream.Memset3D(s, p.Volume(), 9, buffer.Extent{Width: 1, Height: 3, Depth: 2}))
	require.NoError(t, s.Synchronize())
	got := make([]uint8, 4*3*2)
	require.NoError(t, buffer.Copy3D(buffer.SliceVolume(got, 4, 3), p.Volume(), ext))
	assert.Equal(t, []uint8{
		9, 0, 0, 0,
		9, 0, 0, 0,
		9, 0, 0, 0,

		9, 0, 0, 0,
		9, 7, 7, 0,
		9, 7, 7, 0,
	}, got)
}

// 3-D copies race with each other and with frees of their ends.
func TestCopy3DRaces(t *testing.T) {
	dev := setup(t)
	ext := buffer.Extent{Width: 8, Height: 4, Depth: 3}
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
			p, err := buffer.NewPitched3D[int32](dev, ext)
			if !assert.NoError(t, err) {
				return
			}
			src := make([]int32, 8*4*3)
			for i := range src {
				src[i] = int32(g*1000 + i)
			}
			for range 10 {
				assert.NoError(t, stream.Copy3D(s, p.Volume(), buffer.SliceVolume(src, 32, 4), ext))
				out := make([]int32, len(src))
				assert.NoError(t, buffer.Copy3D(buffer.SliceVolume(out, 32, 4), p.Volume(), ext))
				assert.Equal(t, src, out)
			}
			var inner sync.WaitGroup
			inner.Add(1)
			go func() {
				defer inner.Done()
				if err := stream.Copy3D(s, p.Volume(), buffer.SliceVolume(src, 32, 4), ext); err != nil {
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

// BenchmarkCopy3D copies a 256 x 256 x 64 float32 box (16 MiB) between
// two larger pitched allocations on the device, beside a 2-D copy per
// slice and a linear copy of the same bytes in the same run.
func BenchmarkCopy3D(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	require.NoError(b, err)
	ext := buffer.Extent{Width: 320, Height: 288, Depth: 64}
	box := buffer.Extent{Width: 256, Height: 256, Depth: 64}
	src, err := buffer.NewPitched3D[float32](dev, ext)
	require.NoError(b, err)
	defer src.Free()
	dst, err := buffer.NewPitched3D[float32](dev, ext)
	require.NoError(b, err)
	defer dst.Free()
	bytes := int64(box.Width * box.Height * box.Depth * 4)
	b.Run("Copy3D", func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportAllocs()
		for range b.N {
			if err := buffer.Copy3D(dst.Volume().At(8, 8, 0), src.Volume().At(16, 4, 0), box); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Copy2D-per-slice", func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportAllocs()
		row := dst.Pitch() / 4
		for range b.N {
			for z := range box.Depth {
				d := buffer.ObjectView[float32](dst, (z*ext.Height+8)*row+8, dst.Pitch())
				s := buffer.ObjectView[float32](src, (z*ext.Height+4)*row+16, src.Pitch())
				if err := buffer.Copy2D(d, s, box.Width, box.Height); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("linear", func(b *testing.B) {
		b.SetBytes(bytes)
		b.ReportAllocs()
		for range b.N {
			if err := buffer.Copy(dst, 0, src, 0, int(bytes/4)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
