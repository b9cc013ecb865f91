package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
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
