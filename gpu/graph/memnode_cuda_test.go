package graph_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// On a cuda device, kernels between an alloc and a free node, added or
// captured from NewAsync and FreeAsync, are recorded as one CUDA graph:
// the alloc node's memory is pool memory fixed for the graph's life, so
// the memory nodes add no packet and the kernels reach it at its fixed
// address. Every replay computes the same, at the same address. It
// skips without a cuda device (run it with HIPGO_DRIVER=cuda;
// HIPGO_REQUIRE=cuda makes the skip a failure).
func TestMemNodesCUDA(t *testing.T) {
	dev := gputest.DeviceOf(t, "cuda")
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	x := cudaBuf(t, dev, 1)
	acc := cudaBuf(t, dev, 0)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	lowering := os.Getenv("HIPGO_CUDA_GRAPHS") != "0"

	// Added: tmp = x + x, acc += tmp.
	g := graph.New()
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	add, err := g.AddKernel(graph.Kernel{Func: ks.VectorAdd, Grid: grid, Block: block, Args: []any{x, x, tmp, int32(n)}}, a)
	require.NoError(t, err)
	sum, err := g.AddKernel(saxpy(ks, 1, tmp, acc), add)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp, sum)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	if lowering {
		assert.True(t, graph.Lowered(e), "recorded as a CUDA graph")
	}
	ptr := tmp.Ptr()
	for r := 0; r < 20; r++ {
		require.NoError(t, e.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 40.0, float64(cudaRead(t, acc)[n-1]), 1e-3)
	assert.Equal(t, ptr, tmp.Ptr(), "the address is fixed")
	require.NoError(t, e.Destroy())

	// Captured: the same operations through NewAsync and FreeAsync.
	require.NoError(t, graph.BeginCapture(s))
	tmp, err = buffer.NewAsync[float32](s, n)
	require.NoError(t, err)
	require.NoError(t, kernels.LaunchVectorAdd(s, grid, block, 0, x, x, tmp, n))
	require.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 1, tmp, acc, n))
	require.NoError(t, tmp.FreeAsync(s))
	g, err = graph.EndCapture(s)
	require.NoError(t, err)
	e, err = g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	if lowering {
		assert.True(t, graph.Lowered(e), "recorded as a CUDA graph")
	}
	for r := 0; r < 20; r++ {
		require.NoError(t, e.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 80.0, float64(cudaRead(t, acc)[0]), 1e-3)
	require.NoError(t, e.Destroy())
	require.NoError(t, s.Synchronize())
}

func cudaBuf(t *testing.T, dev *gpu.Device, v float32) *buffer.Buffer[float32] {
	t.Helper()
	b, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	in := make([]float32, n)
	for i := range in {
		in[i] = v
	}
	require.NoError(t, b.CopyFrom(in))
	return b
}

func cudaRead(t *testing.T, b *buffer.Buffer[float32]) []float32 {
	t.Helper()
	out := make([]float32, n)
	require.NoError(t, b.CopyTo(out))
	return out
}
