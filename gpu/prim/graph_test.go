package prim

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/graph"
)

// Calls on a capturing stream become a graph, temporary storage its
// alloc and free nodes; each replay computes the result again from the
// inputs as they are then.
func TestGraphCapture(t *testing.T) {
	dev, s := newStream(t)
	n := 100000 // several blocks: the reduction and the sort take temporaries
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(n - i)
	}
	in := upload(t, dev, h)
	sum := upload(t, dev, []int32{0})
	sorted := upload(t, dev, make([]int32, n))
	require.NoError(t, graph.BeginCapture(s))
	require.NoError(t, Sum(s, in, sum))
	require.NoError(t, SortKeys(s, in, sorted, SortOrder{}))
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	defer g.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	for round := range 2 {
		if round == 1 {
			h[0] = -5
			require.NoError(t, in.CopyFrom(h))
		}
		require.NoError(t, e.Launch(s))
		var want int32
		for _, v := range h {
			want += v
		}
		assert.Equal(t, want, download(t, s, sum)[0], "round %d", round)
		ws := slices.Clone(h)
		slices.Sort(ws)
		assert.Equal(t, ws, download(t, s, sorted), "round %d", round)
	}
}
