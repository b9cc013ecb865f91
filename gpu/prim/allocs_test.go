package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// A call on a small input (one launch, no temporary storage) allocates
// nothing on the host: a reduction and an argmin of up to 2^16 elements,
// a scan of up to four GPU tiles (the cpu agent: 2^15 elements), a
// histogram (a memset and a launch), a transform of any size, a
// segmented reduction, and a flagged selection of one tile.
func TestSmallCallAllocs(t *testing.T) {
	prev := goKernels.Checked()
	goKernels.SetChecked(false)
	defer goKernels.SetChecked(prev)
	dev, s := newStream(t)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		for _, n := range []int{1 << 10, 1 << 13} {
			x := upload(t, dev, make([]float32, n))
			out := upload(t, dev, make([]float32, n))
			idx := upload(t, dev, []int64{0})
			bytes := upload(t, dev, make([]uint8, n))
			hist := upload(t, dev, make([]uint32, 256))
			offs := upload(t, dev, []int64{0, 7, int64(n / 2), int64(n)})
			calls := map[string]func() error{
				"sum":          func() error { return Sum(s, x, out) },
				"argmin":       func() error { return ArgMin(s, x, out, idx) },
				"add":          func() error { return Transform2(s, x, x, out, Add) },
				"scale":        func() error { return Transform(s, x, out, Scale, 2) },
				"inclusiveSum": func() error { return InclusiveSum(s, x, out) },
				"histogram":    func() error { return HistogramEven(s, bytes, hist, 0, 256) },
				"segmentedSum": func() error { return SegmentedSum(s, x, out, offs) },
			}
			if n <= selectTile {
				calls["selectFlagged"] = func() error { return SelectFlagged(s, x, bytes, out, idx) }
			}
			for name, call := range calls {
				run := func() {
					require.NoError(t, call())
					require.NoError(t, s.Synchronize())
				}
				for range 3 {
					run()
				}
				testenv.SkipAllocsUnderRace(t)
				assert.Zero(t, testenv.AllocsPerCall(30, run), "%s of %d (gpu shape %v): allocations per call + Synchronize", name, n, shape)
			}
		}
	}
	forceGPUShape = false
}

// A large call (temporary storage, several launches) allocates nothing on
// the host either once its stream has the temporaries it needs: they come
// back to the stream's cache after each call (scratch.go).
func TestLargeCallAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	prev := goKernels.Checked()
	goKernels.SetChecked(false)
	defer goKernels.SetChecked(prev)
	dev, s := newStream(t)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		n := 1 << 17
		if shape {
			n = 1 << 15 // the GPU's shapes run as coroutines on the cpu agent: slower
		}
		x := upload(t, dev, make([]float32, n))
		out := upload(t, dev, make([]float32, n))
		u := upload(t, dev, make([]uint32, n))
		uo := upload(t, dev, make([]uint32, n))
		idx := upload(t, dev, []int64{0})
		counts := upload(t, dev, make([]int64, n))
		bytes := upload(t, dev, make([]uint8, n))
		offs := upload(t, dev, []int64{0, 7, int64(n / 2), int64(n)})
		calls := map[string]func() error{
			"sum":             func() error { return Sum(s, x, out) },
			"argmax":          func() error { return ArgMax(s, x, out, idx) },
			"inclusiveSum":    func() error { return InclusiveSum(s, x, out) },
			"exclusiveSum":    func() error { return ExclusiveSum(s, u, uo) },
			"sumByKey":        func() error { return InclusiveSumByKey(s, u, x, out) },
			"segmentedSum":    func() error { return SegmentedSum(s, x, out, offs) },
			"selectFlagged":   func() error { return SelectFlagged(s, x, bytes, out, idx) },
			"unique":          func() error { return Unique(s, x, out, idx) },
			"runLengthEncode": func() error { return RunLengthEncode(s, x, out, counts, idx) },
			"sortKeys":        func() error { return SortKeys(s, u, uo, SortOrder{}) },
			"sortPairs":       func() error { return SortPairs(s, u, uo, x, out, SortOrder{}) },
			"mergeSortKeys":   func() error { return MergeSortKeys(s, x, out, Ascending) },
			"mergeSortPairs":  func() error { return MergeSortPairs(s, u, uo, x, out, Descending) },
		}
		for name, call := range calls {
			run := func() {
				require.NoError(t, call())
				require.NoError(t, s.Synchronize())
			}
			for range 2 {
				run()
			}
			// No collection while counting (one empties the sync.Pool of
			// signal sleepers in rocr/signal.go that a Synchronize waiting
			// on a long call takes from, and its refill is the wait's
			// allocation, not the call's), the least of three rounds.
			assert.Zero(t, testenv.AllocsPerCall(5, run), "%s of %d (gpu shape %v): allocations per call + Synchronize", name, n, shape)
		}
	}
	forceGPUShape = false
}
