package rtc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

const printfSource = `extern "C" __global__ void hello(int v) {
  printf("hipgo printf %d from thread %d\n", v, (int)threadIdx.x);
}
`

// printf in a CUDA kernel writes to the process's standard output when
// the stream synchronizes, as in CUDA: the driver's FIFO, flushed at the
// synchronize, through the C library's stdout.
func TestPrintfCUDA(t *testing.T) {
	dev := gpuDevice(t)
	if dev.Properties().Driver != "cuda" {
		t.Skipf("%s: this test runs on the cuda driver (on rocm hipgo serves buffered printf only, and hiprtc's default is hostcall printf, which module.Load refuses)", dev)
	}
	m, err := Compile(dev, printfSource, Options{Name: "printf.cu", Cache: "off"})
	require.NoError(t, err)
	defer m.Module.Unload()
	f, err := m.Module.Function("hello")
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	out := testenv.CaptureStdout(t, func() {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(4), 0, s, int32(7)))
		require.NoError(t, s.Synchronize())
	})
	assert.Equal(t, 4, strings.Count(out, "hipgo printf 7 from thread "), "the kernel's output:\n%s", out)
	for i := range 4 {
		assert.Contains(t, out, "from thread "+string(rune('0'+i)))
	}
}
