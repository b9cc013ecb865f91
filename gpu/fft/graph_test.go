package fft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
)

// An execution on a capturing stream becomes a graph node; each replay
// transforms the input as it is then.
func TestGraphCapture(t *testing.T) {
	dev, s := newStream(t)
	p := newPlan(t, dev, Z2Z, []int{4}, 1)
	in := upload(t, dev, []complex128{1, 0, 0, 0})
	out := upload(t, dev, make([]complex128, 4))
	require.NoError(t, graph.BeginCapture(s))
	if !p.be.host() {
		// A library's execution is a native call, which hipgo's graphs
		// do not record yet: refused, with the capture.
		assert.ErrorIs(t, C2CExec(p, s, in, out, Forward), gpu.ErrStreamCaptureUnsupported)
		_, err := graph.EndCapture(s)
		assert.Error(t, err)
		return
	}
	require.NoError(t, C2CExec(p, s, in, out, Forward))
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	defer g.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, e.Launch(s))
	assert.Equal(t, []complex128{1, 1, 1, 1}, download(t, s, out), "the impulse's spectrum")
	require.NoError(t, in.CopyFrom([]complex128{0, 1, 0, 0}))
	require.NoError(t, e.Launch(s))
	got := download(t, s, out)
	for k, want := range []complex128{1, -1i, -1, 1i} {
		assert.InDelta(t, real(want), real(got[k]), 1e-15, "[%d]", k)
		assert.InDelta(t, imag(want), imag(got[k]), 1e-15, "[%d]", k)
	}
}

// A captured execution keeps its buffers: executions of the same plan
// outside the graph, before and after a replay, do not change what the
// graph transforms.
func TestGraphKeepsItsExecution(t *testing.T) {
	dev, s := newStream(t)
	p := newPlan(t, dev, Z2Z, []int{4}, 1)
	in, out := upload(t, dev, []complex128{1, 0, 0, 0}), upload(t, dev, make([]complex128, 4))
	in2, out2 := upload(t, dev, []complex128{0, 0, 1, 0}), upload(t, dev, make([]complex128, 4))
	require.NoError(t, C2CExec(p, s, in2, out2, Forward)) // an execution to reuse
	require.NoError(t, s.Synchronize())
	require.NoError(t, graph.BeginCapture(s))
	if !p.be.host() {
		// A library's execution is refused under capture (TestGraphCapture).
		assert.ErrorIs(t, C2CExec(p, s, in, out, Forward), gpu.ErrStreamCaptureUnsupported)
		_, err := graph.EndCapture(s)
		assert.Error(t, err)
		return
	}
	require.NoError(t, C2CExec(p, s, in, out, Forward))
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	defer g.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	for range 3 {
		require.NoError(t, e.Launch(s))
		require.NoError(t, C2CExec(p, s, in2, out2, Inverse))
	}
	assert.Equal(t, []complex128{1, 1, 1, 1}, download(t, s, out))
	assert.Equal(t, []complex128{1, -1, 1, -1}, download(t, s, out2))
}
