package prim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/raceflag"
)

// withSortLSD runs f with the GPU's sort switched to the pass-by-pass
// one (lsd) or Onesweep.
func withSortLSD(lsd bool, f func()) {
	defer func(old bool) { sortLSD = old }(sortLSD)
	sortLSD = lsd
	f()
}

// sweepSizes are the sizes TestOnesweep sorts: within one tile and
// across tiles (a 32-bit key's tile is 4096 keys, a 64-bit pair's 2304),
// fewer under the race detector.
func sweepSizes() []int {
	return underRace([]int{0, 1, 257, 4097, 9000}, []int{4097})
}

// TestOnesweep: the GPU's sort, Onesweep, and the pass-by-pass sort kept
// behind sortLSD, in the GPU's launch shapes on the cpu agent, for keys
// of several widths, pairs with 32- and 64-bit values and both orders
// (TestRadixSort's gpu-shape runs take more types).
func TestOnesweep(t *testing.T) {
	withNewGPUPaths(func() {
		withGPUShape(t, func() {
			sizes := sweepSizes()
			t.Run("uint32", func(t *testing.T) { testSort[uint32](t, sizes) })
			one := underRace(sizes, []int{257}) // one tile under the race detector
			t.Run("int8", func(t *testing.T) { testSort[int8](t, one) })
			t.Run("pairs-uint64-uint64", func(t *testing.T) { testSortWidePairs[uint64](t, one) })
			if raceflag.Enabled {
				return // fewer launches: see underRace
			}
			t.Run("float64", func(t *testing.T) { testSort[float64](t, sizes[len(sizes)-1:]) })
			t.Run("pairs-float32-uint64", func(t *testing.T) { testSortWidePairs[float32](t, sizes[len(sizes)-1:]) })
			withSortLSD(true, func() {
				t.Run("lsd/uint32", func(t *testing.T) { testSort[uint32](t, sizes) })
				t.Run("lsd/pairs-int64-uint64", func(t *testing.T) { testSortWidePairs[int64](t, sizes[len(sizes)-1:]) })
			})
		})
	})
}

// testSortWidePairs sorts K keys with uint64 values (each its input
// index twice over), whose tiles are smaller than those of 32-bit values.
func testSortWidePairs[K Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(7, uint64(len(sizes))))
	for _, n := range sizes {
		h := random[K](r, n)
		for i := range n / 4 {
			h[r.IntN(n)] = h[i%7]
		}
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = uint64(i)<<32 | uint64(i)
		}
		kin, kout := upload(t, dev, h), upload(t, dev, make([]K, n))
		vin, vout := upload(t, dev, vals), upload(t, dev, make([]uint64, n))
		for _, desc := range []bool{false, true} {
			want, wantIdx := refSort(h, desc)
			require.NoError(t, SortPairs(s, kin, kout, vin, vout, SortOrder{Descending: desc}))
			got, gotV := download(t, s, kout), download(t, s, vout)
			for i := range got {
				w := uint64(wantIdx[i])<<32 | uint64(wantIdx[i])
				if gotV[i] != w || !sameKey(got[i], want[i]) {
					t.Fatalf("desc=%v n=%d: [%d] = (%v, %#x), want (%v, %#x)", desc, n, i, got[i], gotV[i], want[i], w)
				}
			}
		}
	}
}

// A bit range sorts by those bits alone, stably, in place too (an odd
// number of passes starts from a copy), in the GPU's shapes.
func TestOnesweepBitsInPlace(t *testing.T) {
	withGPUShape(t, func() {
		dev, s := newStream(t)
		r := rand.New(rand.NewPCG(8, 8))
		h := random[uint32](r, underRace(sweepSizes()[len(sweepSizes())-1:], []int{257})[0])
		for _, bits := range [][2]int{{0, 8}, {4, 20}, {8, 32}, {0, 0}, {3, 3}, {31, 32}} {
			b := upload(t, dev, h)
			require.NoError(t, SortKeys(s, b, b, SortOrder{BeginBit: bits[0], EndBit: bits[1]}))
			got := download(t, s, b)
			hi := bits[1]
			if hi == 0 {
				hi = 32
			}
			mask := uint32(uint64(1)<<hi-1) &^ uint32(uint64(1)<<bits[0]-1)
			want := slices.Clone(h)
			slices.SortStableFunc(want, func(a, b uint32) int { return cmp.Compare(a&mask, b&mask) })
			assert.Equal(t, want, got, "bits %v", bits)
		}
	})
}

// Inputs past Onesweep's 30-bit counts (sweepMax, lowered here) sort pass
// by pass.
func TestOnesweepLimit(t *testing.T) {
	defer func(old int) { sweepMax = old }(sweepMax)
	sweepMax = 1000
	withGPUShape(t, func() {
		testSort[uint32](t, underRace(sweepSizes(), []int{1001}))
	})
}
