package module_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/kernel"
)

var bigGroup = kernel.Define("test_occupancy_shared", func(g *kernel.Block, a *scaleArgs) {}, kernel.MaxThreads(256), kernel.StaticShared(16<<10))

var occSet = kernel.NewSet("module-occupancy-test", scale, bigGroup)

func TestOccupancyCPU(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, occSet)
	require.NoError(t, err)
	f := m.MustFunction("test_scale")

	grid, block, err := module.OccupancyMaxPotentialBlockSize(f, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 1024, block, "the kernel's largest block")
	assert.Equal(t, runtime.GOMAXPROCS(0), grid, "one block per worker")
	_, block, err = module.OccupancyMaxPotentialBlockSize(f, 0, 100)
	require.NoError(t, err)
	assert.Equal(t, 100, block, "the caller's limit")

	n, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(f, 256, 0)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = module.OccupancyMaxActiveBlocksPerMultiprocessor(f, 2048, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "a block larger than the kernel's limit cannot run")

	g := m.MustFunction("test_occupancy_shared")
	_, block, err = module.OccupancyMaxPotentialBlockSize(g, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 256, block, "the kernel's declared limit")
	n, err = module.OccupancyMaxActiveBlocksPerMultiprocessor(g, 64, cpu.GroupMemory-16<<10+1)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "static plus dynamic shared memory over the limit")
	grid, block, err = module.OccupancyMaxPotentialBlockSize(g, cpu.GroupMemory, 0)
	require.NoError(t, err)
	assert.Equal(t, [2]int{0, 0}, [2]int{grid, block}, "no block fits")

	_, err = module.OccupancyMaxActiveBlocksPerMultiprocessor(f, 0, 0)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, _, err = module.OccupancyMaxPotentialBlockSize(f, -1, 0)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, _, err = module.OccupancyMaxPotentialBlockSize(nil, 0, 0)
	assert.ErrorIs(t, err, gpu.ErrInvalidDeviceFunction)
}

// Occupancy queries race with each other and with Unload; after Unload
// they say the module is gone.
func TestOccupancyRacesUnload(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, occSet)
	require.NoError(t, err)
	f := m.MustFunction("test_scale")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				n, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(f, 64, 0)
				if err != nil {
					assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
					return
				}
				assert.Equal(t, 1, n)
			}
		}()
	}
	require.NoError(t, m.Unload())
	wg.Wait()
	_, _, err = module.OccupancyMaxPotentialBlockSize(f, 0, 0)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
}

// On an NVIDIA GPU the driver's calculator answers: the minimum grid is the
// active blocks at the chosen size on every SM, and no SM holds more than
// 2048 threads (sm_90).
func TestOccupancyCUDA(t *testing.T) {
	if os.Getenv("HIPGO_DRIVER") != "cuda" {
		testenv.Requiref(t, "cuda", "set HIPGO_DRIVER=cuda on an NVIDIA GPU")
	}
	t.Cleanup(func() { assert.NoError(t, gpu.Shutdown()) })
	dev, err := gpu.Default()
	require.NoError(t, err)
	if !strings.HasPrefix(dev.Target(), "sm_") {
		testenv.Requiref(t, "cuda", "no NVIDIA device: %s", dev)
	}
	m, err := module.LoadFile(dev, filepath.Join(nvDir(), "k.ptx"))
	require.NoError(t, err)
	defer m.Unload()
	sms := dev.Properties().MultiProcessorCount
	for _, name := range m.Kernels() {
		f := m.MustFunction(name)
		grid, block, err := module.OccupancyMaxPotentialBlockSize(f, 0, 0)
		require.NoError(t, err, name)
		require.Positive(t, block, name)
		n, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(f, block, 0)
		require.NoError(t, err, name)
		assert.Equal(t, n*sms, grid, name)
		assert.LessOrEqual(t, n*block, 2048, name)
		_, limited, err := module.OccupancyMaxPotentialBlockSize(f, 0, 96)
		require.NoError(t, err, name)
		assert.LessOrEqual(t, limited, 96, name)
		t.Logf("%s: block %d, %d blocks/SM, min grid %d", name, block, n, grid)
	}
}
