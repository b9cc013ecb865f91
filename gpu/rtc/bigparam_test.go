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

const bigParamSource = `struct coefs { float v[1000]; };

extern "C" __global__ void sum_coefs(coefs c, float* out, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; i++) s += c.v[i];
    out[0] = s;
  }
}
`

// A 4000-byte struct passed by value to a compiled kernel: past what an
// Args holds in itself, within the 4 KB a launch passes.
func TestLargeParametersGPU(t *testing.T) {
	dev := gpuDevice(t)
	c, err := Compile(dev, bigParamSource, Options{Name: "bigparam.cu", Cache: "off"})
	require.NoError(t, err)
	defer c.Module.Unload()
	f, err := c.Module.Function("sum_coefs")
	require.NoError(t, err)
	out, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	defer out.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	var v struct{ V [1000]float32 }
	var want float32
	for i := range v.V {
		v.V[i] = float32(i % 5)
		want += v.V[i]
	}
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(32), 0, s, v, out, int32(1000)))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, want, got[0], 0)
}

const hugeParamSource = `struct blob { unsigned int v[8000]; };

extern "C" __global__ void echo_blob(blob b, unsigned int* out) {
  for (int i = threadIdx.x; i < 8000; i += blockDim.x) out[i] = b.v[i];
}
`

// A 32,000-byte struct passed by value, as CUDA 12.1 allows on Volta and
// later: every byte reaches the kernel, twice, through a kernarg area of
// the stream's.
func TestHugeParametersGPU(t *testing.T) {
	dev := gpuDevice(t)
	if n := dev.Agent().Info().MaxKernargSize; n < 32764 {
		testenv.Requiref(t, "cuda", "%s takes %d bytes of kernel parameters (32,764 needs a CUDA 12.1 driver and compute capability 7.0)", dev, n)
	}
	c, err := Compile(dev, hugeParamSource, Options{Name: "hugeparam.cu", Cache: "off"})
	require.NoError(t, err)
	defer c.Module.Unload()
	f, err := c.Module.Function("echo_blob")
	require.NoError(t, err)
	assert.Equal(t, 32008, f.Attributes().KernargSize)
	out, err := buffer.New[uint32](dev, 8000)
	require.NoError(t, err)
	defer out.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	var b struct{ V [8000]uint32 }
	for round := uint32(0); round < 2; round++ {
		for i := range b.V {
			b.V[i] = uint32(i)*2654435761 + round
		}
		var a module.Args
		module.ArgStruct(&a, b).Ptr(out)
		require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(256), &a, 0, s))
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		require.Equal(t, b.V[:], got, "round %d", round)
	}
}
