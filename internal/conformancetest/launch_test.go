package conformancetest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
)

// hip-tests catch/unit/executionControl/hipLaunchCooperativeKernel.cc: Unit_hipLaunchCooperativeKernel_Negative_Parameters
func TestLaunchCooperativeKernelNegativeParameters(t *testing.T) {
	dev := device(t)
	_, nop, _ := functions(t, dev)
	s := newStream(t, dev)
	p := dev.Properties()
	one := gpu.D1(1)
	launch := func(grid, block gpu.Dim3, shared int) error {
		return module.LaunchCooperativeKernel(nop, grid, block, shared, s)
	}
	t.Run("f == nullptr", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidDeviceFunction, code(module.LaunchCooperativeKernel(nil, one, one, 0, s)))
	})
	dim := uint32(math.Ceil(math.Cbrt(float64(p.MaxThreadsPerBlock)))) + 1
	for _, c := range []struct {
		name        string
		grid, block gpu.Dim3
	}{
		{"gridDim.x == 0", gpu.D3(0, 1, 1), one},
		{"gridDim.y == 0", gpu.D3(1, 0, 1), one},
		{"gridDim.z == 0", gpu.D3(1, 1, 0), one},
		{"blockDim.x == 0", one, gpu.D3(0, 1, 1)},
		{"blockDim.y == 0", one, gpu.D3(1, 0, 1)},
		{"blockDim.z == 0", one, gpu.D3(1, 1, 0)},
		{"blockDim.x > maxBlockDimX", one, gpu.D3(uint32(p.MaxThreadsDim[0])+1, 1, 1)},
		{"blockDim.x * blockDim.y * blockDim.z > maxThreadsPerBlock", one, gpu.D3(dim, dim, dim)},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := launch(c.grid, c.block, 0)
			assert.Equal(t, gpu.ErrInvalidConfiguration, code(err), "%v", err)
		})
	}
	t.Run("gridDim.x * gridDim.y * gridDim.z > maxActiveBlocksPerMultiprocessor * multiProcessorCount", func(t *testing.T) {
		n, err := module.MaxCooperativeBlocks(nop, 1, 0)
		require.NoError(t, err)
		err = launch(gpu.D1(uint32(n)+1), one, 0)
		assert.Equal(t, gpu.ErrCooperativeLaunchTooLarge, code(err), "%v", err)
	})
	t.Run("sharedMemBytes > maxSharedMemoryPerBlock", func(t *testing.T) {
		err := launch(one, one, p.SharedMemPerBlock+1)
		assert.Equal(t, gpu.ErrCooperativeLaunchTooLarge, code(err), "%v", err)
	})
	require.NoError(t, s.Synchronize())
}

// hip-tests catch/unit/executionControl/hipLaunchKernel.cc: Unit_hipLaunchKernel_Negative_Parameters
// (sharedMemBytes > maxSharedMemoryPerBlock) and catch/unit/module/hipFuncSetAttribute.cc:
// Unit_hipFuncSetAttribute_Positive_MaxDynamicSharedMemorySize and _Negative_Parameters.
func TestFuncSetAttributeMaxDynamicSharedMemorySize(t *testing.T) {
	dev := device(t)
	_, nop, _ := functions(t, dev)
	s := newStream(t, dev)
	p := dev.Properties()
	one := gpu.D1(1)
	optin := max(p.SharedMemPerBlock, p.MaxSharedMemPerBlockOptin)
	t.Run("sharedMemBytes == maxSharedMemoryPerBlock", func(t *testing.T) {
		require.NoError(t, module.LaunchKernelGGL(nop, one, one, p.SharedMemPerBlock, s))
		require.NoError(t, s.Synchronize())
	})
	t.Run("sharedMemBytes > maxSharedMemoryPerBlock", func(t *testing.T) {
		err := module.LaunchKernelGGL(nop, one, one, p.SharedMemPerBlock+1, s)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("attribute value < 0", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(nop.SetMaxDynamicSharedMemory(-1)))
	})
	t.Run("attribute value > opt-in limit", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(nop.SetMaxDynamicSharedMemory(optin+1)))
	})
	t.Run("func == nullptr", func(t *testing.T) {
		var f *module.Function
		assert.Equal(t, gpu.ErrInvalidDeviceFunction, code(f.SetMaxDynamicSharedMemory(0)))
	})
	t.Run("MaxDynamicSharedMemorySize raised to the opt-in limit", func(t *testing.T) {
		_, f, _ := functions(t, dev) // a module of its own: the attribute stays with it
		require.NoError(t, f.SetMaxDynamicSharedMemory(optin))
		assert.Equal(t, optin, f.Attributes().MaxDynamicSharedSizeBytes)
		require.NoError(t, module.LaunchKernelGGL(f, one, one, optin, s))
		require.NoError(t, s.Synchronize())
		err := module.LaunchKernelGGL(f, one, one, optin+1, s)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
}
