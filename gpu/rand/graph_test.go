package rand

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/graph"
)

// A call on a capturing stream becomes a graph node: each replay writes the
// words the call took when it was captured, and the capture moved the
// generator's offset as a call does.
func TestGraphCapture(t *testing.T) {
	dev, s := newStream(t)
	out := newBuf[uint32](t, dev, 1000)
	g := NewPhilox(77)
	g.SetOffset(5)
	require.NoError(t, graph.BeginCapture(s))
	require.NoError(t, Bits(g, s, out))
	gr, err := graph.EndCapture(s)
	require.NoError(t, err)
	defer gr.Destroy()
	assert.Equal(t, uint64(1005), g.Offset())
	e, err := gr.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	for round := range 2 {
		require.NoError(t, out.CopyFrom(make([]uint32, 1000)))
		require.NoError(t, e.Launch(s))
		assert.Equal(t, refBits32(77, 5, 1000), download(t, s, out), "replay %d", round)
	}
}
