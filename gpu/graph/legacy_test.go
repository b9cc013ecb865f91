package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// The legacy stream cannot capture, and its work while a blocking stream
// captures is an implicit synchronization that fails and invalidates the
// capture, as in CUDA. A non-blocking stream's capture is untouched, and
// a graph captured elsewhere replays on the legacy stream.
func TestLegacyStreamCapture(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	z := newBuf(t, dev, 0)
	leg, err := stream.Legacy(dev)
	require.NoError(t, err)

	err = graph.BeginCapture(leg)
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(err), "%v", err)
	assert.False(t, graph.IsCapturing(leg))

	s := newStream(t, dev)
	require.NoError(t, graph.BeginCapture(s))
	require.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 1, x, y, n))
	err = kernels.LaunchSaxpy(leg, grid, block, 0, 1, x, z, n)
	assert.Equal(t, gpu.ErrStreamCaptureImplicit, codeOf(err), "%v", err)
	_, err = graph.EndCapture(s)
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err), "%v", err)

	nb, err := stream.NewWithFlags(dev, stream.NonBlocking, stream.PriorityLow)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, nb.Destroy()) })
	require.NoError(t, graph.BeginCapture(nb))
	for i := 0; i < 3; i++ {
		require.NoError(t, kernels.LaunchSaxpy(nb, grid, block, 0, 2, x, y, n))
	}
	require.NoError(t, kernels.LaunchSaxpy(leg, grid, block, 0, 1, x, z, n), "a non-blocking stream's capture does not involve the legacy stream")
	g, err := graph.EndCapture(nb)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, e.Destroy()) })
	require.NoError(t, e.Launch(leg))
	require.NoError(t, leg.Synchronize())
	assert.Equal(t, float32(6), read(t, y)[n-1])
	assert.Equal(t, float32(1), read(t, z)[n-1])
}
