package rtc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

const globalSource = `__constant__ float coef[4];
__device__ unsigned int hits;
__device__ float table[64];

extern "C" __global__ void scale_by_coef(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= coef[i % 4];
    atomicAdd(&hits, 1u);
  }
}

extern "C" __global__ void fill(float* t, float v) { t[threadIdx.x] = v + threadIdx.x; }
`

// A runtime-compiled module's __constant__ and __device__ variables, as
// hipModuleGetGlobal, hipMemcpyToSymbol[Async], hipMemcpyFromSymbol and
// hipGetSymbolAddress use them.
func TestGlobalGPU(t *testing.T) {
	dev := gpuDevice(t)
	c, err := Compile(dev, globalSource, Options{Name: "globals.cu", Cache: "off"})
	require.NoError(t, err)
	m := c.Module
	defer m.Unload()

	coef, err := module.GetGlobal[float32](m, "coef")
	require.NoError(t, err)
	assert.Equal(t, 16, coef.Bytes(), "sized from the symbol")
	hits, err := module.GetGlobal[uint32](m, "hits")
	require.NoError(t, err)
	assert.Equal(t, 1, hits.Len())
	table, err := module.GetGlobal[float32](m, "table")
	require.NoError(t, err)
	assert.Equal(t, 64, table.Len())

	_, err = module.GetGlobal[float32](m, "absent")
	assert.ErrorIs(t, err, gpu.ErrNotFound)
	_, err = module.GetGlobal[[3]float32](m, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorIs(t, coef.CopyFrom(make([]float32, 5)), gpu.ErrInvalidValue)

	require.NoError(t, coef.CopyFrom([]float32{1, 2, 3, 4}))
	require.NoError(t, hits.CopyFrom([]uint32{0}))
	const n = 1000
	host := make([]float32, n)
	for i := range host {
		host[i] = 1
	}
	x, err := buffer.FromSlice(dev, host)
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	f, err := m.Function("scale_by_coef")
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(4), gpu.D1(256), 0, s, x, int32(n)))
	// Stream-ordered: the second launch sees the new coefficients.
	require.NoError(t, stream.CopyToDevice(s, coef, 0, []float32{10, 10, 10, 10}))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(4), gpu.D1(256), 0, s, x, int32(n)))
	require.NoError(t, s.Synchronize())
	out, err := x.ToSlice()
	require.NoError(t, err)
	for i, v := range out {
		require.InDelta(t, float32(10*(i%4+1)), v, 0, "x[%d]", i)
	}
	got, err := hits.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []uint32{2 * n}, got, "the kernels' atomics on the __device__ counter")

	// The variable's address as a kernel argument, written on another
	// stream: the synchronous read waits for it.
	other, err := stream.New(dev)
	require.NoError(t, err)
	defer other.Destroy()
	fill, err := m.Function("fill")
	require.NoError(t, err)
	require.NoError(t, module.LaunchKernelGGL(fill, gpu.D1(1), gpu.D1(64), 0, other, table, float32(0.5)))
	tab, err := table.ToSlice()
	require.NoError(t, err)
	for i, v := range tab {
		require.InDelta(t, 0.5+float64(i), float64(v), 0, "table[%d]", i)
	}
	part := make([]float32, 2)
	require.NoError(t, table.CopyToAt(10, part))
	assert.InDeltaSlice(t, []float32{10.5, 11.5}, part, 0)
}
