package conformancetest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hip-tests catch/unit/memory/hipMalloc.cc: Unit_hipMalloc_Negative_Parameters
func TestMallocNegativeParameters(t *testing.T) {
	dev := device(t)
	t.Run("size == max size_t", func(t *testing.T) {
		_, err := buffer.New[byte](dev, math.MaxInt)
		assert.Equal(t, gpu.ErrOutOfMemory, code(err), "%v", err)
	})
}

// hip-tests catch/unit/memory/hipMalloc.cc: Unit_hipMalloc_Positive_Alignment
func TestMallocPositiveAlignment(t *testing.T) {
	dev := device(t)
	for _, n := range []int{1, 10} {
		b := newBuffer[byte](t, dev, n)
		assert.Zero(t, uintptr(b.Ptr())%256, "%d bytes", n)
	}
}

// hip-tests catch/unit/memory/hipMalloc.cc: Unit_hipMalloc_Positive_Zero_Size
func TestMallocPositiveZeroSize(t *testing.T) {
	dev := device(t)
	b, err := buffer.New[byte](dev, 0)
	require.NoError(t, err)
	defer b.Free()
	assert.Equal(t, 0, b.Len())
	assert.Zero(t, uintptr(b.Ptr()), "a null pointer, as hipMalloc(0) gives")
}

// hip-tests catch/unit/memory/hipMallocPitch.cc: Unit_hipMallocPitch_Zero_Dims
func TestMallocPitchZeroDims(t *testing.T) {
	dev := device(t)
	for name, wh := range map[string][2]int{"width == 0": {0, 1}, "height == 0": {1, 0}} {
		t.Run(name, func(t *testing.T) {
			p, err := buffer.NewPitched[float32](dev, wh[0], wh[1])
			require.NoError(t, err)
			defer p.Free()
			assert.Equal(t, 0, p.Len())
		})
	}
}

// hip-tests catch/unit/memory/hipMallocPitch.cc: Unit_hipMallocPitch_Negative
func TestMallocPitchNegative(t *testing.T) {
	dev := device(t)
	t.Run("Max size_t height", func(t *testing.T) {
		_, err := buffer.NewPitched[byte](dev, 1, math.MaxInt)
		assert.Equal(t, gpu.ErrOutOfMemory, code(err), "%v", err)
	})
	t.Run("Max size_t width", func(t *testing.T) { // HT_NVIDIA only in hip-tests
		_, err := buffer.NewPitched[byte](dev, math.MaxInt, 1)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
}

// hip-tests catch/unit/memory/hipMallocPitch.cc: Unit_hipMalloc3D_Negative
func TestMalloc3DNegative(t *testing.T) {
	dev := device(t)
	cases := []struct {
		name string
		ext  buffer.Extent
		want gpu.ErrorCode
	}{
		{"Max size_t width", buffer.Extent{Width: math.MaxInt, Height: 1, Depth: 1}, gpu.ErrInvalidValue},
		{"Max size_t height", buffer.Extent{Width: 1, Height: math.MaxInt, Depth: 1}, gpu.ErrOutOfMemory},
		{"Max size_t depth", buffer.Extent{Width: 1, Height: 1, Depth: math.MaxInt}, gpu.ErrOutOfMemory},
		{"Max size_t all dimensions", buffer.Extent{Width: math.MaxInt, Height: math.MaxInt, Depth: math.MaxInt}, gpu.ErrInvalidValue},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buffer.NewPitched3D[byte](dev, c.ext)
			assert.Equal(t, c.want, code(err), "%v", err)
		})
	}
}

// hip-tests catch/unit/memory/hipMallocPitch.cc: Unit_hipMallocPitch_ValidatePitch
func TestMallocPitchValidatePitch(t *testing.T) {
	dev := device(t)
	p, err := buffer.NewPitched[float32](dev, 100, 7)
	require.NoError(t, err)
	defer p.Free()
	assert.Zero(t, p.Pitch()%buffer.PitchAlign)
	assert.GreaterOrEqual(t, p.Pitch(), 100*4)
	assert.Equal(t, 7, p.Height())
}

// hip-tests catch/unit/memory/hipMemcpy.cc: Unit_hipMemcpy_Positive_Basic
// (host to device, device to device, device to host)
func TestMemcpyPositiveBasic(t *testing.T) {
	dev := device(t)
	src := []int32{1, 2, 3, 4, 5, 6, 7, 8}
	a, b := newBuffer[int32](t, dev, len(src)), newBuffer[int32](t, dev, len(src))
	t.Run("hipMemcpyHostToDevice", func(t *testing.T) { require.NoError(t, a.CopyFrom(src)) })
	t.Run("hipMemcpyDeviceToDevice", func(t *testing.T) { require.NoError(t, buffer.Copy(b, 0, a, 0, len(src))) })
	t.Run("hipMemcpyDeviceToHost", func(t *testing.T) {
		out := make([]int32, len(src))
		require.NoError(t, b.CopyTo(out))
		assert.Equal(t, src, out)
	})
	// Unit_hipMemcpy_Negative: a copy past the end of an allocation.
	t.Run("Negative size past the allocation", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(a.CopyFrom(make([]int32, len(src)+1))))
	})
}

// hip-tests catch/unit/memory/hipMemcpyAsync.cc: Unit_hipMemcpyAsync_Positive_Basic
func TestMemcpyAsyncPositiveBasic(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev)
	src := []float32{1.5, 2.5, 3.5}
	b := newBuffer[float32](t, dev, 3)
	out := make([]float32, 3)
	require.NoError(t, stream.CopyToDevice(s, b, 0, src))
	require.NoError(t, stream.CopyToHost(s, out, b, 0))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, src, out)
}

// hip-tests catch/unit/memory/hipMemset.cc: Unit_hipMemset_Positive_Basic, hipMemsetD32
func TestMemsetPositiveBasic(t *testing.T) {
	dev := device(t)
	t.Run("hipMemset", func(t *testing.T) {
		b := newBuffer[uint32](t, dev, 16)
		require.NoError(t, b.Memset(0xab))
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, uint32(0xabababab), out[15])
	})
	t.Run("hipMemsetD32", func(t *testing.T) {
		b := newBuffer[uint32](t, dev, 16)
		require.NoError(t, b.Fill(0xdeadbeef))
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, uint32(0xdeadbeef), out[0])
	})
	t.Run("hipMemsetAsync", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[uint8](t, dev, 64)
		require.NoError(t, s.Memset(b, 7))
		require.NoError(t, s.Synchronize())
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, uint8(7), out[63])
	})
}

// hip-tests catch/unit/memory/hipMemcpy2D.cc: Unit_hipMemcpy2D_Positive_Basic and _Negative_Parameters
func TestMemcpy2D(t *testing.T) {
	dev := device(t)
	const w, h = 5, 4
	p, err := buffer.NewPitched[int32](dev, w, h)
	require.NoError(t, err)
	defer p.Free()
	host := make([]int32, w*h)
	for i := range host {
		host[i] = int32(i)
	}
	t.Run("Positive_Basic", func(t *testing.T) {
		require.NoError(t, buffer.Copy2D(p.View(), buffer.SliceView(host, w*4), w, h))
		out := make([]int32, w*h)
		require.NoError(t, buffer.Copy2D(buffer.SliceView(out, w*4), p.View(), w, h))
		assert.Equal(t, host, out)
	})
	t.Run("width > spitch", func(t *testing.T) {
		err := buffer.Copy2D(p.View(), buffer.SliceView(host, 2*4), w, h)
		assert.Equal(t, gpu.ErrInvalidPitchValue, code(err), "%v", err)
	})
	t.Run("width > dpitch", func(t *testing.T) {
		out := make([]int32, w*h)
		err := buffer.Copy2D(buffer.SliceView(out, 2*4), p.View(), w, h)
		assert.Equal(t, gpu.ErrInvalidPitchValue, code(err), "%v", err)
	})
	t.Run("height past the allocation", func(t *testing.T) {
		err := buffer.Copy2D(p.View(), buffer.SliceView(host, w*4), w, h+1)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
}

// hip-tests catch/unit/memory/hipMemset2D.cc: Unit_hipMemset2D_BasicFunctional
func TestMemset2DBasicFunctional(t *testing.T) {
	dev := device(t)
	p, err := buffer.NewPitched[uint8](dev, 10, 3)
	require.NoError(t, err)
	defer p.Free()
	require.NoError(t, buffer.Memset2D(p.View(), 0x11, 10, 3))
	out := make([]uint8, 30)
	require.NoError(t, buffer.Copy2D(buffer.SliceView(out, 10), p.View(), 10, 3))
	for _, v := range out {
		require.Equal(t, uint8(0x11), v)
	}
}

// hip-tests catch/unit/memory/hipMemcpy3D.cc: Unit_hipMemcpy3D_Positive_Basic
// hip-tests catch/unit/memory/hipMemset3D.cc: Unit_hipMemset3D_BasicFunctional
func TestMemcpy3DAndMemset3D(t *testing.T) {
	dev := device(t)
	ext := buffer.Extent{Width: 3, Height: 2, Depth: 2}
	p, err := buffer.NewPitched3D[int32](dev, ext)
	require.NoError(t, err)
	defer p.Free()
	host := make([]int32, 12)
	for i := range host {
		host[i] = int32(i + 1)
	}
	t.Run("Memcpy3D", func(t *testing.T) {
		require.NoError(t, buffer.Copy3D(p.Volume(), buffer.SliceVolume(host, 3*4, 2), ext))
		out := make([]int32, 12)
		require.NoError(t, buffer.Copy3D(buffer.SliceVolume(out, 3*4, 2), p.Volume(), ext))
		assert.Equal(t, host, out)
	})
	t.Run("Memset3D", func(t *testing.T) {
		require.NoError(t, buffer.Memset3D(p.Volume(), 0, ext))
		out := make([]int32, 12)
		require.NoError(t, buffer.Copy3D(buffer.SliceVolume(out, 3*4, 2), p.Volume(), ext))
		assert.Equal(t, make([]int32, 12), out)
	})
	t.Run("Memcpy3DAsync", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, stream.Copy3D(s, p.Volume(), buffer.SliceVolume(host, 3*4, 2), ext))
		require.NoError(t, s.Synchronize())
	})
	// hip-tests catch/unit/memory/hipMemcpy3D.cc: Unit_hipMemcpy3D_Negative_Parameters
	// (a pitch below the row's width is hipErrorInvalidPitchValue)
	t.Run("srcPtr.pitch < width", func(t *testing.T) {
		err := buffer.Copy3D(p.Volume(), buffer.SliceVolume(host, 2*4, 2), ext)
		assert.Equal(t, gpu.ErrInvalidPitchValue, code(err), "%v", err)
	})
	t.Run("dstPtr.pitch < width", func(t *testing.T) {
		out := make([]int32, 12)
		err := buffer.Copy3D(buffer.SliceVolume(out, 2*4, 2), p.Volume(), ext)
		assert.Equal(t, gpu.ErrInvalidPitchValue, code(err), "%v", err)
	})
	t.Run("async pitch < width", func(t *testing.T) {
		err := stream.Copy3D(newStream(t, dev), p.Volume(), buffer.SliceVolume(host, 2*4, 2), ext)
		assert.Equal(t, gpu.ErrInvalidPitchValue, code(err), "%v", err)
	})
}

// hip-tests catch/unit/memory/hipFree.cc: Unit_hipFreeNegativeHost / "hipFree(nullptr)"
// and hipHostFree.cc: freeing a null pointer succeeds.
func TestFreeNullptr(t *testing.T) {
	t.Run("hipFree(nullptr)", func(t *testing.T) {
		var b *buffer.Buffer[int32]
		assert.NoError(t, b.Free())
	})
	t.Run("hipHostFree(nullptr)", func(t *testing.T) {
		var h *buffer.Host[int32]
		assert.NoError(t, h.Free())
	})
	t.Run("hipFree(nullptr) managed", func(t *testing.T) {
		var m *buffer.Managed[int32]
		assert.NoError(t, m.Free())
	})
	t.Run("double hipFree", func(t *testing.T) {
		b, err := buffer.New[int32](device(t), 4)
		require.NoError(t, err)
		require.NoError(t, b.Free())
		assert.Equal(t, gpu.ErrInvalidValue, code(b.Free()))
	})
}
