package prim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// withLookBackTile runs f with the look-back scan's tile made small
// (block work-items of items elements, 4- and 8-byte types alike), so
// that the cpu agent walks many tiles in little time.
func withLookBackTile(t *testing.T, block, items int, f func()) {
	t.Helper()
	defer func(b, i4, i8 int) { lbBlock, lbItems4, lbItems8 = b, i4, i8 }(lbBlock, lbItems4, lbItems8)
	lbBlock, lbItems4, lbItems8 = block, items, items
	f()
}

// lbWalk is one look-back: the launched block takes ticket b, and tile
// j < b has published state(j).
type lbWalk struct {
	name  string
	b     int
	state func(j int) (status uint64, v int)
	want  int // the total of the tiles before b
}

// lbWalks make the walk meet what a GPU shows it and the cpu agent's
// launches never do (they run blocks to the end in ticket order): the
// nearest prefix a window or more back behind aggregates, prefixes
// before the nearest one (which the walk must not add), and a prefix in
// the window's middle.
var lbWalks = []lbWalk{
	{"prefix two windows back", 40, func(j int) (uint64, int) {
		if j == 0 {
			return tilePrefix, 1000
		}
		return tileAggregate, j
	}, 1000 + 39*40/2},
	{"nearest of several prefixes", 40, func(j int) (uint64, int) {
		switch {
		case j < 5:
			return tilePrefix, 1 << 20
		case j == 5:
			return tilePrefix, 7
		}
		return tileAggregate, 1
	}, 7 + 34},
	{"prefix mid-window", 40, func(j int) (uint64, int) {
		switch {
		case j < 20:
			return tilePrefix, 1 << 20
		case j == 20:
			return tilePrefix, 100
		}
		return tileAggregate, 2
	}, 100 + 19*2},
	{"prefix just before", 3, func(j int) (uint64, int) { return tilePrefix, 5 * j }, 10},
	{"tile 0 only", 1, func(int) (uint64, int) { return tilePrefix, 9 }, 9},
}

// testLookBackWalk launches the one block of each walk and checks its
// tile's scan and the inclusive prefix it publishes.
func testLookBackWalk[T Number](t *testing.T) {
	dev, s := newStream(t)
	var zero T
	size := int(unsafe.Sizeof(zero))
	packed := size == 4
	withLookBackTile(t, 32, 3, func() {
		tile := lbTile(size)
		for _, w := range lbWalks {
			t.Run(w.name, func(t *testing.T) {
				tiles := w.b + 2
				h := make([]T, tiles*tile)
				for i := range h {
					h[i] = T(i%7) + 1
				}
				in := upload(t, dev, h)
				out := upload(t, dev, make([]T, len(h)))
				st := make([]uint64, tiles+1)
				agg, incl := make([]T, tiles), make([]T, tiles)
				for j := range w.b {
					status, x := w.state(j)
					v := T(x)
					st[j] = status << 32
					if packed {
						st[j] |= lbBits(v, kindOf[T]())
					} else if status == tilePrefix {
						incl[j] = v
					} else {
						agg[j] = v
					}
				}
				st[tiles] = uint64(w.b) // the ticket counter
				states, ab, ib := upload(t, dev, st), upload(t, dev, agg), upload(t, dev, incl)
				require.NoError(t, numFor[T]().scanLB(s, gpu.D1(1), gpu.D1(uint32(lbBlock)), tile*size, in, out, ab, ib, states, false, true, tile))
				got := download(t, s, out)
				run := T(w.want)
				for i := w.b * tile; i < (w.b+1)*tile; i++ {
					run += h[i]
					if !assert.Equal(t, run, got[i], "element %d", i) {
						break
					}
				}
				sw := download(t, s, states)
				assert.Equal(t, tilePrefix, sw[w.b]>>32, "tile %d published its prefix", w.b)
				if packed {
					assert.Equal(t, run, lbValue[T](sw[w.b], kindOf[T]()))
				} else {
					assert.Equal(t, run, download(t, s, ib)[w.b])
				}
				assert.Equal(t, uint64(w.b+1), sw[tiles], "ticket counter")
			})
		}
	})
}

// kindOf is T's kind as the look-back packs it.
func kindOf[T Number]() int32 {
	var v T
	switch any(v).(type) {
	case float32:
		return kindFloat32
	case float64:
		return kindFloat64
	case int32, int64:
		return kindSigned
	}
	return kindUnsigned
}

func TestLookBackWalk(t *testing.T) {
	t.Run("int32", testLookBackWalk[int32])
	t.Run("uint32", testLookBackWalk[uint32])
	t.Run("float32", testLookBackWalk[float32])
	t.Run("int64", testLookBackWalk[int64])
	t.Run("float64", testLookBackWalk[float64])
}

// TestLookBackBits: a 4-byte value survives its trip through a state's
// low half, negative numbers, -0, infinities and NaN's bits included.
func TestLookBackBits(t *testing.T) {
	for _, v := range []int32{0, 1, -1, math.MinInt32, math.MaxInt32} {
		w := tileAggregate<<32 | lbBits(v, kindSigned)
		assert.Equal(t, tileAggregate, w>>32)
		assert.Equal(t, v, lbValue[int32](w, kindSigned))
	}
	for _, v := range []uint32{0, 1, math.MaxUint32} {
		assert.Equal(t, v, lbValue[uint32](tilePrefix<<32|lbBits(v, kindUnsigned), kindUnsigned))
	}
	for _, v := range []float32{0, float32(math.Copysign(0, -1)), 1.5, -3.25e-30, float32(math.Inf(-1)), float32(math.NaN())} {
		w := tilePrefix<<32 | lbBits(v, kindFloat32)
		assert.Equal(t, tilePrefix, w>>32)
		assert.Equal(t, math.Float32bits(v), math.Float32bits(lbValue[float32](w, kindFloat32)))
	}
}

// lbSizes are sizes around multiples of the small tile (96) past the
// one-launch limit, where the scan takes the look-back.
var lbSizes = underRace([]int{11265, 96*118 - 1, 96 * 118, 96*118 + 1, 96*150 + 95, 96 * 200, 96*200 + 1, 40000},
	[]int{11265, 96 * 118, 96*118 + 1})

// testScanLookBack checks the look-back scan, inclusive and exclusive,
// element by element against a serial one, on buffers (16-byte loads)
// and on views one element in (an element a work-item).
func testScanLookBack[T Number](t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(7, 49))
	for _, n := range lbSizes {
		h := random[T](r, n+1)
		b := upload(t, dev, h)
		ob := upload(t, dev, make([]T, n+1))
		for _, view := range []bool{false, true} {
			var in, out buffer.Array[T] = b.Sub(0, n), ob.Sub(0, n)
			src := h[:n]
			if view {
				in, out, src = b.Sub(1, n), ob.Sub(1, n), h[1:]
			}
			for _, exclusive := range []bool{false, true} {
				if exclusive {
					require.NoError(t, ExclusiveSum(s, in, out))
				} else {
					require.NoError(t, InclusiveSum(s, in, out))
				}
				got := download(t, s, ob)
				if view {
					got = got[1:]
				}
				checkScan(t, fmt.Sprintf("n=%d view=%v exclusive=%v", n, view, exclusive), src, got[:n], exclusive)
			}
		}
	}
}

// checkScan compares got with the serial scan of h: exactly for
// integers, within rounding for floats.
func checkScan[T Number](t *testing.T, what string, h, got []T, exclusive bool) {
	t.Helper()
	var run T
	var abs float64
	bad := 0
	for i, v := range h {
		if !exclusive {
			run += v
		}
		abs += math.Abs(float64(v))
		ok := got[i] == run
		if isFloat[T]() {
			ok = math.Abs(float64(got[i])-float64(run)) <= 1e-5*abs+1e-6
		}
		if !ok && bad < 3 {
			bad++
			t.Errorf("%s: out[%d] = %v, want %v", what, i, got[i], run)
		}
		if exclusive {
			run += v
		}
	}
}

func TestScanLookBack(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			withLookBackTile(t, 32, 3, func() {
				t.Run("int32", testScanLookBack[int32])
				t.Run("uint32", testScanLookBack[uint32])
				t.Run("float32", testScanLookBack[float32])
				t.Run("int64", testScanLookBack[int64])
				t.Run("uint64", testScanLookBack[uint64])
				t.Run("float64", testScanLookBack[float64])
			})
			// A tile whose 16-byte loads take every turn of the load loop
			// (four, two and one in flight), and the default tiles, a few
			// past the one-launch limit.
			withLookBackTile(t, 32, 29, func() {
				t.Run("b32_i29/int32", testScanLookBack[int32])
				t.Run("b32_i29/float64", testScanLookBack[float64])
			})
			t.Run("default-tile/int32", testScanLookBack[int32])
			t.Run("default-tile/float64", testScanLookBack[float64])
		})
	})
}

// TestScanLookBackBoundaries: ones make every element's sum its index,
// so an error at a tile's first or last element (a tile counted twice or
// not at all, an exclusive scan shifted across a boundary) shows exactly.
func TestScanLookBackBoundaries(t *testing.T) {
	dev, s := newStream(t)
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			withLookBackTile(t, 32, 3, func() {
				tile := lbTile(4)
				n := 130*tile + 17
				h := make([]int32, n)
				for i := range h {
					h[i] = 1
				}
				in, out := upload(t, dev, h), upload(t, dev, make([]int32, n))
				for _, exclusive := range []bool{false, true} {
					if exclusive {
						require.NoError(t, ExclusiveSum(s, in, out))
					} else {
						require.NoError(t, InclusiveSum(s, in, out))
					}
					got := download(t, s, out)
					for k := 1; k*tile < n; k++ {
						for _, i := range []int{k*tile - 1, k * tile, k*tile + 1} {
							want := int32(i + 1)
							if exclusive {
								want = int32(i)
							}
							require.Equal(t, want, got[i], "exclusive=%v element %d (tile %d's edge)", exclusive, i, k)
						}
					}
					assert.Equal(t, map[bool]int32{false: int32(n), true: int32(n - 1)}[exclusive], got[n-1])
				}
			})
		})
	})
}

// keyWalks are walks of a scan by key: an aggregate with a head ends the
// walk as a prefix does, its total counted and nothing before it.
var keyWalks = []lbWalk{
	{"head ends the walk", 40, func(j int) (uint64, int) {
		switch {
		case j == 0:
			return tilePrefix, 1 << 20
		case j < 10:
			return tileAggregate, 5
		case j == 10:
			return tileAggregate | tileHead, 3
		}
		return tileAggregate, 1
	}, 3 + 29},
	{"head two windows back", 40, func(j int) (uint64, int) {
		switch {
		case j < 3:
			return tilePrefix, 1 << 20
		case j == 3:
			return tileAggregate | tileHead, 2
		}
		return tileAggregate, 1
	}, 2 + 36},
	{"prefix behind aggregates", 40, func(j int) (uint64, int) {
		if j == 0 {
			return tilePrefix, 1000
		}
		return tileAggregate, j
	}, 1000 + 39*40/2},
}

// testKeyLookBackWalk launches the one block of each walk of a scan by
// key, with a head in the block's tile (at element 50) or none, and
// checks the tile's scan and the inclusive prefix it publishes.
func testKeyLookBackWalk[T Number](t *testing.T) {
	dev, s := newStream(t)
	var zero T
	size := int(unsafe.Sizeof(zero))
	packed := size == 4
	const block, tile, at = 32, 96, 50
	for _, w := range keyWalks {
		for _, head := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/head=%v", w.name, head), func(t *testing.T) {
				tiles := w.b + 2
				h := make([]T, tiles*tile)
				for i := range h {
					h[i] = T(i%5) + 1
				}
				hd := make([]uint8, len(h))
				if head {
					hd[w.b*tile+at] = 1
				}
				st := make([]uint64, tiles+1)
				agg, incl := make([]T, tiles), make([]T, tiles)
				for j := range w.b {
					status, x := w.state(j)
					v := T(x)
					st[j] = status << 32
					if packed {
						st[j] |= lbBits(v, kindOf[T]())
					} else if status == tilePrefix {
						incl[j] = v
					} else {
						agg[j] = v
					}
				}
				st[tiles] = uint64(w.b)
				in, out := upload(t, dev, h), upload(t, dev, make([]T, len(h)))
				states, ab, ib := upload(t, dev, st), upload(t, dev, agg), upload(t, dev, incl)
				require.NoError(t, numFor[T]().segScanLB(s, gpu.D1(1), gpu.D1(block), tile*size, in, upload(t, dev, hd), out, ab, ib, states, true, true, tile))
				got := download(t, s, out)
				run := T(w.want)
				for i := w.b * tile; i < (w.b+1)*tile; i++ {
					if hd[i] != 0 {
						run = 0
					}
					if !assert.Equal(t, run, got[i], "exclusive, element %d", i) {
						break
					}
					run += h[i]
				}
				sw := download(t, s, states)
				assert.Equal(t, tilePrefix, sw[w.b]>>32, "tile %d published its prefix", w.b)
				if packed {
					assert.Equal(t, run, lbValue[T](sw[w.b], kindOf[T]()))
				} else {
					assert.Equal(t, run, download(t, s, ib)[w.b])
				}
			})
		}
	}
}

func TestKeyLookBackWalk(t *testing.T) {
	t.Run("int32", testKeyLookBackWalk[int32])
	t.Run("float32", testKeyLookBackWalk[float32])
	t.Run("int64", testKeyLookBackWalk[int64])
	t.Run("float64", testKeyLookBackWalk[float64])
}

// TestScanByKeyLookBack: scans by key past the one-launch limit on the
// GPU's shapes, runs of every length around the tile's (2816) included,
// keys of one byte and of eight, values of 4 and 8 bytes.
func TestScanByKeyLookBack(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			sz := underRace([]int{11265, 2816 * 5, 2816*5 + 1, 2816*9 - 1, 30011}, []int{11265, 2816*5 + 1})
			t.Run("uint8/int32", func(t *testing.T) { testScanByKey[uint8, int32](t, sz) })
			t.Run("int32/float32", func(t *testing.T) { testScanByKey[int32, float32](t, sz) })
			t.Run("uint64/int64", func(t *testing.T) { testScanByKey[uint64, int64](t, sz) })
			t.Run("float32/float64", func(t *testing.T) { testScanByKey[float32, float64](t, sz) })
			// Runs longer than a tile: the carry crosses tiles.
			dev, s := newStream(t)
			for _, run := range []int{2815, 2816, 2817, 9000} {
				n := 30011
				keys := make([]uint8, n)
				vals := make([]int32, n)
				want := make([]int32, n)
				var sum int32
				for i := range keys {
					keys[i] = uint8(i / run)
					vals[i] = int32(i%3) - 1
					if i%run == 0 {
						sum = 0
					}
					sum += vals[i]
					want[i] = sum
				}
				out := upload(t, dev, make([]int32, n))
				require.NoError(t, InclusiveSumByKey(s, upload(t, dev, keys), upload(t, dev, vals), out))
				assert.Equal(t, want, download(t, s, out), "runs of %d", run)
			}
		})
	})
}
