package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Library.Function gives a Go kernel as a *module.Function, by its C
// name, for a hand-built graph node.
func TestLibraryFunctionInAGraph(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	_, err := faulty.Library.Function(dev, "Fill")
	assert.Error(t, err, "the C name is fill")
	fn, err := faulty.Library.Function(dev, "fill")
	require.NoError(t, err)

	const n = 100
	x, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, x.Free()) }()
	g := graph.New()
	_, err = g.AddKernel(graph.Kernel{Func: fn, Grid: gpu.D1(1), Block: gpu.D1(128), Args: []any{x, float32(7), int32(n)}})
	require.NoError(t, err)
	exec, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, exec.Destroy()) }()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	require.NoError(t, exec.Launch(s))
	require.NoError(t, s.Synchronize())
	got, err := x.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, float32(7), v, "x[%d]", i)
	}
}
