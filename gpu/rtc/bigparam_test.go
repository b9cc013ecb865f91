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
