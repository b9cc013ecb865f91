package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// TestOnesweepLookBack: a tile whose predecessors have published only
// their counts (as on a GPU, where they are still running) adds them up
// to the first inclusive prefix, and its keys land after them. The cpu
// agent runs blocks to the end in ticket order, so a launch never shows
// it that state: the test sets the states and the ticket, and launches
// the one block.
func TestOnesweepLookBack(t *testing.T) {
	withGPUShape(t, func() {
		dev, s := newStream(t)
		tile := sweepBlock * sweepU32.items
		tiles := 4
		h := make([]uint32, tiles*tile)
		for i := range tile {
			h[3*tile+i] = uint32(i) // digit i%256, 16 keys a digit
		}
		// 60 keys of each digit in all: digit d's keys start at 60d.
		meta := make([]uint32, 8*256+8)
		for d := range 256 {
			meta[d] = 60
		}
		meta[2048] = 3 // the launched block takes ticket 3
		// Tile 0 has published its prefix (1 key of each digit), tiles 1
		// and 2 only their counts (2 and 3); the other half holds junk
		// that tile 3 clears for the next pass.
		st := make([]uint32, 2*256*tiles)
		for d := range 256 {
			st[d] = sweepPrefix | 1
			st[256+d] = sweepAggregate | 2
			st[512+d] = sweepAggregate | 3
			st[256*tiles+3*256+d] = 0xdead
		}
		in, out := upload(t, dev, h), upload(t, dev, make([]uint32, len(h)))
		mb, sb := upload(t, dev, meta), upload(t, dev, st)
		require.NoError(t, LaunchSweepKeysU32(s, gpu.D1(1), gpu.D1(sweepBlock), 0, in, out, mb, sb, 0, 0, 8, false))
		got := download(t, s, out)
		for i := range tile {
			d, r := i%256, i/256
			if !assert.Equal(t, uint32(i), got[60*d+6+r], "key %d (digit %d, rank %d)", i, d, r) {
				break
			}
		}
		states := download(t, s, sb)
		for d := range 256 {
			require.Equal(t, sweepPrefix|(6+16), states[3*256+d], "tile 3's prefix of digit %d", d)
			require.Zero(t, states[256*tiles+3*256+d], "tile 3's state of digit %d for the next pass", d)
		}
		assert.Equal(t, uint32(4), download(t, s, mb)[2048], "the ticket counter")
	})
}
