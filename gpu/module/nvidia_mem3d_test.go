package module_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Every pair of 3-D copy ends on an NVIDIA GPU (cuMemcpy3DAsync), and a
// 3-D fill (cuMemsetD2D8Async per slice).
func TestCopy3DCUDA(t *testing.T) {
	dev := cudaDevice(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	const depth = 4
	type end struct {
		vol         buffer.Volume[float32]
		pitch, rows int
		load        func([]float32)
		read        func() []float32
	}
	mk := func(kind string) end {
		switch kind {
		case "slice":
			x := make([]float32, 9*6*depth)
			return end{buffer.SliceVolume(x, 36, 6), 9, 6, func(v []float32) { copy(x, v) }, func() []float32 { return x }}
		case "host":
			x, err := buffer.NewHost[float32](dev, 10*5*depth)
			require.NoError(t, err)
			t.Cleanup(func() { x.Free() })
			return end{buffer.ObjectVolume[float32](x, 0, 40, 5), 10, 5, func(v []float32) { copy(x.Slice(), v) }, func() []float32 { return append([]float32(nil), x.Slice()...) }}
		case "buffer":
			x, err := buffer.New[float32](dev, 8*7*depth)
			require.NoError(t, err)
			t.Cleanup(func() { x.Free() })
			return end{buffer.ObjectVolume[float32](x, 0, 32, 7), 8, 7, func(v []float32) { require.NoError(t, x.CopyFrom(v)) }, func() []float32 { v, err := x.ToSlice(); require.NoError(t, err); return v }}
		}
		x, err := buffer.NewPitched3D[float32](dev, buffer.Extent{Width: 7, Height: 5, Depth: depth})
		require.NoError(t, err)
		t.Cleanup(func() { x.Free() })
		tmp, err := buffer.New[float32](dev, x.Len())
		require.NoError(t, err)
		t.Cleanup(func() { tmp.Free() })
		return end{x.Volume(), x.Pitch() / 4, 5,
			func(v []float32) {
				require.NoError(t, tmp.CopyFrom(v))
				require.NoError(t, buffer.Copy(x, 0, tmp, 0, x.Len()))
			},
			func() []float32 {
				require.NoError(t, buffer.Copy(tmp, 0, x, 0, x.Len()))
				v, err := tmp.ToSlice()
				require.NoError(t, err)
				return v
			}}
	}
	ext := buffer.Extent{Width: 5, Height: 3, Depth: 2}
	kinds := []string{"slice", "host", "buffer", "pitched3d"}
	for _, async := range []bool{false, true} {
		for _, dk := range kinds {
			for _, sk := range kinds {
				name := fmt.Sprintf("%s<-%s/async=%v", dk, sk, async)
				dst, src := mk(dk), mk(sk)
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
					require.NoError(t, stream.Copy3D(s, dst.vol.At(2, 1, 2), src.vol.At(1, 1, 1), ext), name)
					require.NoError(t, s.Synchronize(), name)
				} else {
					require.NoError(t, buffer.Copy3D(dst.vol.At(2, 1, 2), src.vol.At(1, 1, 1), ext), name)
				}
				for i, v := range dst.read() {
					z, y, x := i/(dst.pitch*dst.rows), i/dst.pitch%dst.rows, i%dst.pitch
					want := float32(-1)
					if x >= 2 && x < 2+ext.Width && y >= 1 && y < 1+ext.Height && z >= 2 && z < 2+ext.Depth {
						want = sv[((z-1)*src.rows+y)*src.pitch+x-1]
					}
					require.Equal(t, want, v, "%s slice %d row %d column %d", name, z, y, x)
				}
			}
		}
	}
	p, err := buffer.NewPitched3D[uint8](dev, buffer.Extent{Width: 4, Height: 2, Depth: 2})
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, buffer.Memset3D(p.Volume(), 0, p.Extent()))
	require.NoError(t, stream.Memset3D(s, p.Volume().At(1, 1, 0), 7, buffer.Extent{Width: 2, Height: 1, Depth: 2}))
	require.NoError(t, s.Synchronize())
	got := make([]uint8, 16)
	require.NoError(t, buffer.Copy3D(buffer.SliceVolume(got, 4, 2), p.Volume(), p.Extent()))
	assert.Equal(t, []uint8{0, 0, 0, 0, 0, 7, 7, 0, 0, 0, 0, 0, 0, 7, 7, 0}, got)
}
