package prim

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// withSweepShape runs f with the GPU's shapes on the cpu agent and
// selection tiles of block work-items of items elements.
func withSweepShape(t *testing.T, block, items int, f func(tile int)) {
	defer func(b, i int) { selectBlock, selectItems = b, i }(selectBlock, selectItems)
	selectBlock, selectItems = block, items
	_, _, tile := selectShape(4)
	withNewGPUPaths(func() { withGPUShape(t, func() { f(tile) }) })
}

// The one-pass selection in several tile shapes, at tile boundaries and
// over more tiles than a warp looks back at once.
func TestSelectSweepShapes(t *testing.T) {
	for _, sh := range [][2]int{{32, 1}, {64, 3}, {128, 5}} {
		withSweepShape(t, sh[0], sh[1], func(tile int) {
			sizes := []int{tile - 1, tile, tile + 1, 2*tile - 1, 3*tile + 5, 40*tile + 3}
			t.Run(fmt.Sprintf("%dx%d/int32", sh[0], sh[1]), func(t *testing.T) { testSelect[int32](t, sizes) })
			t.Run(fmt.Sprintf("%dx%d/float64", sh[0], sh[1]), func(t *testing.T) { testSelect[float64](t, sizes[:5]) })
		})
	}
}

// All selected and none, over many tiles: the counts run to n and stay
// 0, and a partition of either is its input.
func TestSelectSweepAllNone(t *testing.T) {
	withSweepShape(t, 32, 2, func(tile int) {
		dev, s := newStream(t)
		n := 45*tile + 7
		h := make([]int32, n)
		for i := range h {
			h[i] = int32(i)
		}
		in, out := upload(t, dev, h), upload(t, dev, make([]int32, n))
		num := upload(t, dev, []int64{-1})
		for _, c := range []struct {
			op   SelectOp
			a    int32
			want int
		}{{Less, int32(n), n}, {Greater, int32(n), 0}, {GreaterEqual, 0, n}, {Equal, -1, 0}} {
			require.NoError(t, SelectIf(s, in, out, num, c.op, c.a))
			assert.Equal(t, int64(c.want), download(t, s, num)[0], "select %d %d", c.op, c.a)
			if c.want == n {
				assert.Equal(t, h, download(t, s, out), "select %d %d", c.op, c.a)
			}
			require.NoError(t, PartitionIf(s, in, out, num, c.op, c.a))
			assert.Equal(t, int64(c.want), download(t, s, num)[0], "partition %d %d", c.op, c.a)
			assert.Equal(t, h, download(t, s, out), "partition %d %d: both parts in order", c.op, c.a)
		}

		// One run over every tile, and runs of one.
		counts := upload(t, dev, make([]int64, n))
		for _, c := range []struct {
			name string
			h    []int32
		}{{"one run", make([]int32, n)}, {"distinct", h}} {
			in := upload(t, dev, c.h)
			require.NoError(t, RunLengthEncode(s, in, out, counts, num))
			runs := 1
			if c.name == "distinct" {
				runs = n
			}
			require.Equal(t, int64(runs), download(t, s, num)[0], c.name)
			lens := download(t, s, counts)[:runs]
			if runs == 1 {
				assert.Equal(t, int64(n), lens[0], c.name)
			} else {
				for i, l := range lens {
					if !assert.Equal(t, int64(1), l, "%s: run %d", c.name, i) {
						break
					}
				}
			}
			require.NoError(t, Unique(s, in, out, num))
			require.Equal(t, int64(runs), download(t, s, num)[0], c.name)
		}
	})
}

// NaNs across tiles: selected by NotEqual only, each a run of its own; a
// run that crosses a tile's edge is one run, and one that starts there
// is counted from its start.
func TestSelectSweepNaN(t *testing.T) {
	withSweepShape(t, 32, 1, func(tile int) {
		dev, s := newStream(t)
		nan := math.NaN()
		n := 5*tile + 3
		h := make([]float64, n)
		for i := range h {
			switch {
			case i%7 == 3:
				h[i] = nan
			default:
				h[i] = float64(i / 10)
			}
		}
		h[tile-1], h[tile] = 77, 77                      // a run across the first edge
		h[2*tile-1], h[2*tile] = nan, nan                // two runs at the second
		h[3*tile-1], h[3*tile] = 5, math.Copysign(0, -1) // a run starting at the third
		h[3*tile+1] = 0
		var uniq []float64
		var lens []int64
		for i, x := range h {
			if i == 0 || x != h[i-1] {
				uniq = append(uniq, x)
				lens = append(lens, 0)
			}
			lens[len(lens)-1]++
		}
		in, out := upload(t, dev, h), upload(t, dev, make([]float64, n))
		num, counts := upload(t, dev, []int64{0}), upload(t, dev, make([]int64, n))
		require.NoError(t, RunLengthEncode(s, in, out, counts, num))
		require.Equal(t, int64(len(uniq)), download(t, s, num)[0])
		assert.Equal(t, lens, download(t, s, counts)[:len(lens)])
		got := download(t, s, out)[:len(uniq)]
		for i := range uniq {
			if math.IsNaN(uniq[i]) {
				assert.True(t, math.IsNaN(got[i]), "run %d", i)
			} else {
				assert.Equal(t, uniq[i], got[i], "run %d", i)
			}
		}
		nans := 0
		for _, x := range h {
			if x != x {
				nans++
			}
		}
		require.NoError(t, SelectIf(s, in, out, num, Equal, nan))
		assert.Equal(t, int64(0), download(t, s, num)[0], "NaN == NaN is false")
		require.NoError(t, SelectIf(s, in, out, num, NotEqual, nan))
		assert.Equal(t, int64(n), download(t, s, num)[0], "x != NaN is true")
		require.NoError(t, PartitionIf(s, in, out, num, GreaterEqual, 0))
		assert.Equal(t, int64(n-nans), download(t, s, num)[0], "NaN >= 0 is false")
		got = download(t, s, out)
		for i := n - nans; i < n; i++ {
			require.True(t, math.IsNaN(got[i]), "element %d", i)
		}
	})
}

// A tile whose predecessors have published only their counts (as on a
// GPU, where they are still running) adds them up, a warp's window at a
// time, to the first prefix; its elements land after them, it publishes
// its prefix, and as the last tile it writes the number selected and the
// length of the last run. The cpu agent runs blocks to the end in
// ticket order, so a launch never shows it that state: the test sets the
// states and the ticket, and launches the one block.
func TestSelectSweepLookBack(t *testing.T) {
	withSweepShape(t, 32, 2, func(tile int) {
		dev, s := newStream(t)
		const tiles = 40 // tile 39 looks back past a warp's window
		h := make([]int32, tiles*tile)
		for i := range h {
			h[i] = int32(i / 3) // runs of 3: heads at multiples of 3
		}
		lo := (tiles - 1) * tile
		st := make([]uint64, tiles+1)
		st[0] = selPrefix | 100
		for j := 1; j < tiles-1; j++ {
			st[j] = selAggregate | uint64(j)
		}
		st[tiles] = tiles - 1 // the launched block takes ticket 39
		before := int64(100 + (tiles-2)*(tiles-1)/2)
		// Heads: the last run head of each tile (-1: none), then up to
		// each tile. Tile 38's says 5 before the tile (the data say 3: the
		// length of that run shows which the tile took).
		heads := make([]int64, 2*tiles)
		for j := range heads {
			heads[j] = -1
		}
		heads[tiles+0] = 3
		heads[tiles-2] = int64(lo - 5)
		in, out := upload(t, dev, h), upload(t, dev, make([]int32, len(h)))
		counts := upload(t, dev, make([]int64, len(h)+200))
		num := upload(t, dev, []int64{-1})
		sb, hb := upload(t, dev, st), upload(t, dev, heads)
		flags := upload(t, dev, []uint8{0})
		l := selSweepFor[int32]()
		block, items, _ := selectShape(4)
		require.NoError(t, l.sweep(s, gpu.D1(1), gpu.D1(uint32(block)), tile*4, in, flags, out, counts, predUnique, 0, sb, hb, num, false, true, items))
		got, lens := download(t, s, out), download(t, s, counts)
		var want []int32
		var wantLens []int64
		prev := int64(lo - 5)
		for i := lo; i < len(h); i++ {
			if h[i] != h[i-1] {
				want = append(want, h[i])
				wantLens = append(wantLens, int64(i)-prev)
				prev = int64(i)
			}
		}
		wantLens = append(wantLens, int64(len(h))-prev)
		k := int64(len(want))
		assert.Equal(t, want, got[before:before+k], "the tile's heads after the %d before", before)
		assert.Equal(t, wantLens, lens[before-1:before+k], "the lengths of the run before and the tile's runs")
		assert.Equal(t, before+k, download(t, s, num)[0], "num[0] from the last tile")
		states := download(t, s, sb)
		assert.Equal(t, selPrefix|uint64(before+k), states[tiles-1], "tile 39's prefix")
		assert.Equal(t, uint64(tiles), states[tiles], "the ticket counter")
		hs := download(t, s, hb)
		assert.Equal(t, prev, hs[tiles+tiles-1], "tile 39's last head up to it")
	})
}
