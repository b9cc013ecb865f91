package rtc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Each block writes its rank in its cluster and its cluster's size, read
// from the PTX special registers.
const clusterSource = `extern "C" __global__ void cluster_rank(unsigned int* out) {
  unsigned int rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  unsigned int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0) {
    out[2 * b] = rank;
    out[2 * b + 1] = size;
  }
}
`

// Launches in thread-block clusters on sm_90: one of 8 blocks in x, one
// of 2x2 blocks, and one of 16 once the kernel allows non-portable sizes;
// every block's cluster rank is checked.
func TestClustersGPU(t *testing.T) {
	dev := gpuDevice(t)
	if !dev.Properties().ClusterLaunch {
		testenv.Requiref(t, "cuda", "%s has no thread-block clusters (compute capability 9.0 and a CUDA 12 driver)", dev)
	}
	c, err := Compile(dev, clusterSource, Options{Name: "cluster.cu", Cache: "off"})
	require.NoError(t, err)
	defer c.Module.Unload()
	f, err := c.Module.Function("cluster_rank")
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	out, err := buffer.New[uint32](dev, 2*64)
	require.NoError(t, err)
	defer out.Free()

	run := func(grid, cluster gpu.Dim3) {
		t.Helper()
		cfg := module.LaunchConfig{Grid: grid, Block: gpu.D1(32), Stream: s, Cluster: cluster}
		require.NoError(t, stream.Fill(s, out, uint32(0xffffffff)))
		require.NoError(t, module.LaunchKernelEx(&cfg, f, out), "grid %v cluster %v", grid, cluster)
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		for z := uint32(0); z < grid.Z; z++ {
			for y := uint32(0); y < grid.Y; y++ {
				for x := uint32(0); x < grid.X; x++ {
					b := x + grid.X*(y+grid.Y*z)
					rank := x%cluster.X + cluster.X*(y%cluster.Y+cluster.Y*(z%cluster.Z))
					require.Equal(t, rank, got[2*b], "grid %v cluster %v block (%d,%d,%d): rank", grid, cluster, x, y, z)
					require.Equal(t, uint32(cluster.Count()), got[2*b+1], "block (%d,%d,%d): cluster size", x, y, z)
				}
			}
		}
	}
	run(gpu.D1(32), gpu.D1(8))
	run(gpu.D2(4, 4), gpu.D2(2, 2))
	run(gpu.D3(4, 2, 2), gpu.D3(2, 1, 2))

	n, err := module.MaxPotentialClusterSize(f, &module.LaunchConfig{Grid: gpu.D1(64), Block: gpu.D1(32)})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, 8, "the portable size fits a 32-thread kernel")

	err = module.LaunchKernelEx(&module.LaunchConfig{Grid: gpu.D1(32), Block: gpu.D1(32), Stream: s, Cluster: gpu.D1(16)}, f, out)
	assert.ErrorIs(t, err, gpu.ErrInvalidConfiguration, "16 blocks before the kernel allows non-portable sizes")
	require.NoError(t, f.SetNonPortableClusterSizeAllowed(true))
	run(gpu.D1(64), gpu.D1(16))
}
