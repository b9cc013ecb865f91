package conformancetest

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// hip-tests catch/unit/device/hipGetDeviceProperties.cc: Unit_hipGetDeviceProperties_Positive
// (warpSize): the property is the width a kernel's warpSize reads.
func TestGetDevicePropertiesWarpSize(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev)
	out := newBuffer[int32](t, dev, 1)
	require.NoError(t, LaunchConformanceWarpSize(s, gpu.D1(1), gpu.D1(64), 0, out))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	p, err := gpu.PropertiesOf(dev)
	require.NoError(t, err)
	assert.Equal(t, int(got[0]), p.WarpSize, "hipDeviceProp_t.warpSize against a kernel's warpSize")
	assert.Contains(t, []int{32, 64}, p.WarpSize)
}

// hip-tests catch/unit/memory/hipMemGetInfo.cc: Unit_hipMemGetInfo_DifferentMallocLarge
// (free and total; an allocation takes from free, its free gives back)
func TestMemGetInfo(t *testing.T) {
	dev := device(t)
	p := dev.Properties()
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, p.TotalGlobalMem, total, "total is totalGlobalMem")
	assert.LessOrEqual(t, free, total)
	assert.Positive(t, free)
	const n = 64 << 20
	b, err := buffer.New[byte](dev, n)
	require.NoError(t, err)
	during, _, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Less(t, during, free, "an allocation of %d bytes takes from free", n)
	if p.IsCPU {
		assert.LessOrEqual(t, during, free-n)
	}
	require.NoError(t, b.Free())
	after, _, err := dev.MemInfo()
	require.NoError(t, err)
	assert.Greater(t, after, during, "a free gives back")
	t.Run("Negative: invalid device", func(t *testing.T) {
		var nilDev *gpu.Device
		_, _, err := nilDev.MemInfo()
		assert.Equal(t, gpu.ErrInvalidDevice, code(err))
	})
}

// hip-tests catch/unit/device/hipDeviceGetAttribute.cc: Unit_hipDeviceGetAttribute_CheckAttrValues
// (each attribute agrees with hipGetDeviceProperties) and _NegTst.
func TestDeviceGetAttribute(t *testing.T) {
	dev := device(t)
	p := dev.Properties()
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	cases := []struct {
		name string
		attr gpu.DeviceAttribute
		want int
	}{
		{"hipDeviceAttributeMaxThreadsPerBlock", gpu.AttrMaxThreadsPerBlock, p.MaxThreadsPerBlock},
		{"hipDeviceAttributeMaxBlockDimX", gpu.AttrMaxBlockDimX, p.MaxThreadsDim[0]},
		{"hipDeviceAttributeMaxBlockDimY", gpu.AttrMaxBlockDimY, p.MaxThreadsDim[1]},
		{"hipDeviceAttributeMaxBlockDimZ", gpu.AttrMaxBlockDimZ, p.MaxThreadsDim[2]},
		{"hipDeviceAttributeMaxGridDimX", gpu.AttrMaxGridDimX, p.MaxGridSize[0]},
		{"hipDeviceAttributeMaxGridDimY", gpu.AttrMaxGridDimY, p.MaxGridSize[1]},
		{"hipDeviceAttributeMaxGridDimZ", gpu.AttrMaxGridDimZ, p.MaxGridSize[2]},
		{"hipDeviceAttributeMaxSharedMemoryPerBlock", gpu.AttrMaxSharedMemoryPerBlock, p.SharedMemPerBlock},
		{"hipDeviceAttributeTotalConstantMemory", gpu.AttrTotalConstantMemory, p.TotalConstMem},
		{"hipDeviceAttributeWarpSize", gpu.AttrWarpSize, p.WarpSize},
		{"hipDeviceAttributeMaxRegistersPerBlock", gpu.AttrMaxRegistersPerBlock, p.RegsPerBlock},
		{"hipDeviceAttributeClockRate", gpu.AttrClockRate, p.ClockRate},
		{"hipDeviceAttributeMultiprocessorCount", gpu.AttrMultiprocessorCount, p.MultiProcessorCount},
		{"hipDeviceAttributeL2CacheSize", gpu.AttrL2CacheSize, p.L2CacheSize},
		{"hipDeviceAttributeMaxThreadsPerMultiProcessor", gpu.AttrMaxThreadsPerMultiProcessor, p.MaxThreadsPerMultiProcessor},
		{"hipDeviceAttributeComputeCapabilityMajor", gpu.AttrComputeCapabilityMajor, p.Major},
		{"hipDeviceAttributeComputeCapabilityMinor", gpu.AttrComputeCapabilityMinor, p.Minor},
		{"hipDeviceAttributeMaxPitch", gpu.AttrMaxPitch, p.MemPitch},
		{"hipDeviceAttributeCooperativeLaunch", gpu.AttrCooperativeLaunch, flag(p.CooperativeLaunch)},
		{"hipDeviceAttributeManagedMemory", gpu.AttrManagedMemory, flag(p.ManagedMemory)},
		{"hipDeviceAttributeConcurrentManagedAccess", gpu.AttrConcurrentManagedAccess, flag(p.ConcurrentManagedAccess)},
		{"hipDeviceAttributeMemoryPoolsSupported", gpu.AttrMemoryPoolsSupported, 1},
		{"hipDeviceAttributeUnifiedAddressing", gpu.AttrUnifiedAddressing, 1},
		{"hipDeviceAttributeCanMapHostMemory", gpu.AttrCanMapHostMemory, 1},
		{"hipDeviceAttributeConcurrentKernels", gpu.AttrConcurrentKernels, flag(p.ConcurrentKernels)},
		{"hipDeviceAttributeIntegrated", gpu.AttrIntegrated, flag(p.Integrated)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := dev.Attribute(c.attr)
			require.NoError(t, err)
			assert.Equal(t, c.want, v)
		})
	}
	t.Run("NegTst: invalid attribute", func(t *testing.T) {
		_, err := dev.Attribute(gpu.DeviceAttribute(-1))
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("NegTst: invalid device", func(t *testing.T) {
		var nilDev *gpu.Device
		_, err := nilDev.Attribute(gpu.AttrWarpSize)
		assert.Equal(t, gpu.ErrInvalidDevice, code(err))
	})
}

// hip-tests catch/unit/device/hipGetDeviceProperties.cc: Unit_hipGetDeviceProperties_Positive
// (the fields HIP programs size their work by are set, and consistent)
func TestGetDevicePropertiesFields(t *testing.T) {
	dev := device(t)
	p, err := gpu.PropertiesOf(dev)
	require.NoError(t, err)
	assert.Positive(t, p.MaxThreadsPerMultiProcessor, "maxThreadsPerMultiProcessor")
	assert.GreaterOrEqual(t, p.MaxThreadsPerMultiProcessor, p.MaxThreadsPerBlock)
	assert.Positive(t, p.MaxBlocksPerMultiProcessor, "maxBlocksPerMultiProcessor")
	assert.Positive(t, p.SharedMemPerMultiprocessor, "sharedMemPerMultiprocessor")
	assert.GreaterOrEqual(t, p.SharedMemPerMultiprocessor, p.SharedMemPerBlock)
	assert.Positive(t, p.TotalConstMem, "totalConstMem")
	assert.Positive(t, p.MemPitch, "memPitch")
	assert.True(t, p.MemoryPoolsSupported)
	assert.True(t, p.UnifiedAddressing)
	assert.True(t, p.CanMapHostMemory)
	assert.True(t, p.ManagedMemory, "hipgo's managed memory works on every driver")
	if p.IsCPU {
		assert.True(t, p.CooperativeLaunch)
		assert.True(t, p.ConcurrentManagedAccess)
		assert.True(t, p.Integrated)
	} else {
		assert.Positive(t, p.RegsPerBlock, "regsPerBlock")
	}
}

// hip-tests catch/unit/memory/hipPointerGetAttributes.cc: Unit_hipPointerGetAttributes_Basic
// and _Negative (device, host and managed memory; an offset into an
// allocation; memory hipgo did not allocate; a null pointer).
func TestPointerGetAttributes(t *testing.T) {
	dev := device(t)
	b := newBuffer[int32](t, dev, 1024)
	t.Run("device memory", func(t *testing.T) {
		a, err := gpu.PointerGetAttributes(uintptr(b.Ptr()))
		require.NoError(t, err)
		assert.Equal(t, gpu.MemoryTypeDevice, a.Type)
		require.NotNil(t, a.Device)
		assert.Equal(t, dev.Ordinal(), a.Device.Ordinal(), "the owning device")
		assert.Equal(t, uintptr(b.Ptr()), a.DevicePointer)
		assert.False(t, a.IsManaged)
		assert.Equal(t, uintptr(b.Ptr()), a.AllocationBase)
		assert.GreaterOrEqual(t, a.AllocationSize, uintptr(4096))
	})
	t.Run("offset into device memory", func(t *testing.T) {
		a, err := gpu.PointerGetAttributes(uintptr(b.Ptr()) + 100)
		require.NoError(t, err)
		assert.Equal(t, gpu.MemoryTypeDevice, a.Type)
		assert.Equal(t, uintptr(b.Ptr()), a.AllocationBase)
	})
	t.Run("host memory", func(t *testing.T) {
		h, err := buffer.NewHost[int32](dev, 256)
		require.NoError(t, err)
		defer h.Free()
		a, err := gpu.PointerGetAttributes(uintptr(h.Ptr()))
		require.NoError(t, err)
		assert.Equal(t, gpu.MemoryTypeHost, a.Type)
		assert.Equal(t, uintptr(h.Ptr()), a.HostPointer)
	})
	t.Run("managed memory", func(t *testing.T) {
		m, err := buffer.NewManaged[int32](dev, 256)
		require.NoError(t, err)
		defer m.Free()
		a, err := gpu.PointerGetAttributes(uintptr(m.Ptr()))
		require.NoError(t, err)
		assert.Equal(t, gpu.MemoryTypeManaged, a.Type)
		assert.True(t, a.IsManaged)
	})
	t.Run("unregistered host memory", func(t *testing.T) {
		x := new(int64)
		a, err := gpu.PointerGetAttributes(uintptr(unsafe.Pointer(x)))
		require.NoError(t, err)
		assert.Equal(t, gpu.MemoryTypeUnregistered, a.Type)
		assert.Nil(t, a.Device)
	})
	t.Run("freed memory", func(t *testing.T) {
		f, err := buffer.New[int32](dev, 256)
		require.NoError(t, err)
		ptr := uintptr(f.Ptr())
		require.NoError(t, f.Free())
		a, err := gpu.PointerGetAttributes(ptr)
		require.NoError(t, err)
		assert.NotEqual(t, gpu.MemoryTypeDevice, a.Type, "%+v", a)
	})
	t.Run("Negative: nullptr", func(t *testing.T) {
		_, err := gpu.PointerGetAttributes(0)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
}
