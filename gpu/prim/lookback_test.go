package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// TestLookBackWalk: a block whose predecessors have published only
// their aggregates (as on a GPU, where they are still running) adds them
// up to the first inclusive prefix. The cpu agent runs blocks to the end
// in ticket order, so a launch never shows it that state: the test sets
// the states and the ticket counter, and launches the one block.
func TestLookBackWalk(t *testing.T) {
	dev, s := newStream(t)
	p := planScan(shape{sms: 1}, 5*blockSize*11, 4)
	require.Equal(t, 5, p.tiles)
	h := make([]int32, p.tiles*p.tile)
	for i := range h {
		h[i] = int32(i%7) - 2
	}
	in := upload(t, dev, h)
	out := upload(t, dev, make([]int32, len(h)))
	// Tile 0 has published its prefix (100), tiles 1 and 2 only their
	// aggregates (20, 3); the launched block takes ticket 3.
	agg := upload(t, dev, []int32{0, 20, 3, 0, 0})
	incl := upload(t, dev, []int32{100, 0, 0, 0, 0})
	flags := upload(t, dev, []uint32{tilePrefix, tileAggregate, tileAggregate, tileNone, tileNone, 3})
	require.NoError(t, LaunchScanLBI32(s, gpu.D1(1), gpu.D1(uint32(p.block)), p.shared, in, out, agg, incl, flags, false, p.tile))
	got := download(t, s, out)
	run := int32(123)
	for i := 3 * p.tile; i < 4*p.tile; i++ {
		run += h[i]
		if !assert.Equal(t, run, got[i], "element %d", i) {
			break
		}
	}
	st := download(t, s, flags)
	assert.Equal(t, []uint32{tilePrefix, tileAggregate, tileAggregate, tilePrefix, tileNone, 4}, st, "tile 3 published its prefix")
	assert.Equal(t, run, download(t, s, incl)[3])
}
