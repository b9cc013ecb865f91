package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
)

// hip-tests catch/unit/occupancy/hipOccupancyMaxPotentialBlockSize.cc and
// hipModuleOccupancyMaxPotentialBlockSize.cc (occupancy_common.hh's
// MaxPotentialBlockSize)
func TestOccupancyMaxPotentialBlockSize(t *testing.T) {
	dev := device(t)
	_, _, fill := functions(t, dev)
	p := dev.Properties()
	check := func(t *testing.T, shared, limit int) {
		grid, block, err := module.OccupancyMaxPotentialBlockSize(fill, shared, limit)
		require.NoError(t, err)
		assert.Positive(t, grid)
		assert.Positive(t, block)
		assert.LessOrEqual(t, block, p.MaxThreadsPerBlock)
		assert.Less(t, int64(grid)*int64(block), int64(1)<<32)
	}
	t.Run("dynSharedMemPerBlk = 0, blockSizeLimit = 0", func(t *testing.T) { check(t, 0, 0) })
	t.Run("dynSharedMemPerBlk = sharedMemPerBlock, blockSizeLimit = maxThreadsPerBlock", func(t *testing.T) {
		check(t, p.SharedMemPerBlock, p.MaxThreadsPerBlock)
	})
	// Unit_hipOccupancyMaxPotentialBlockSize_Negative_Parameters
	t.Run("Kernel function is NULL", func(t *testing.T) {
		_, _, err := module.OccupancyMaxPotentialBlockSize(nil, 0, 0)
		assert.Equal(t, gpu.ErrInvalidDeviceFunction, code(err))
	})
}

// hip-tests catch/unit/occupancy/hipOccupancyMaxActiveBlocksPerMultiprocessor.cc and
// hipModuleOccupancyMaxActiveBlocksPerMultiprocessor.cc (occupancy_common.hh's
// MaxActiveBlocksPerMultiprocessor)
func TestOccupancyMaxActiveBlocksPerMultiprocessor(t *testing.T) {
	dev := device(t)
	_, _, fill := functions(t, dev)
	p := dev.Properties()
	_, block, err := module.OccupancyMaxPotentialBlockSize(fill, 0, 0)
	require.NoError(t, err)
	check := func(t *testing.T, shared int) {
		n, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(fill, block, shared)
		require.NoError(t, err)
		assert.Positive(t, n)
		assert.LessOrEqual(t, n*block, p.MaxThreadsPerBlock*p.MultiProcessorCount)
	}
	t.Run("dynSharedMemPerBlk = 0", func(t *testing.T) { check(t, 0) })
	t.Run("dynSharedMemPerBlk = sharedMemPerBlock", func(t *testing.T) { check(t, p.SharedMemPerBlock) })
	// Unit_hipOccupancyMaxActiveBlocksPerMultiprocessor_Negative_Parameters
	t.Run("Kernel function is NULL", func(t *testing.T) {
		_, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(nil, block, 0)
		assert.Equal(t, gpu.ErrInvalidDeviceFunction, code(err))
	})
	t.Run("Block size is 0", func(t *testing.T) {
		_, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(fill, 0, 0)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
}
