package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// ReduceWith allocates nothing on the host, small (one launch) or large
// (two, through the stream's temporaries): the kernel's lookup is a map
// read keyed by a nil pointer's type.
func TestReduceWithAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev, s := newStream(t)
	cpuAgent(t, dev)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		for _, n := range []int{1 << 10, 1 << 17} {
			in, out := upload(t, dev, make([]int32, n)), upload(t, dev, []int32{0})
			run := func() {
				require.NoError(t, ReduceWith(s, wrapMul{}, in, out))
				require.NoError(t, s.Synchronize())
			}
			for range 3 {
				run()
			}
			assert.Zero(t, testenv.AllocsPerCall(30, run), "%d elements (gpu shape %v): allocations per call + Synchronize", n, shape)
		}
	}
	forceGPUShape = false
}

// The scans and merge sorts with an operation allocate nothing on the
// host once the stream's temporaries are cached, in either shape.
func TestScanMergeWithAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev, s := newStream(t)
	cpuAgent(t, dev)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		for _, n := range []int{1000, 40000} {
			in, out := upload(t, dev, make([]int32, n)), upload(t, dev, make([]int32, n))
			run := func() {
				require.NoError(t, InclusiveScanWith(s, wrapMul{}, in, out))
				require.NoError(t, MergeSortWith(s, descending{}, in, out))
				require.NoError(t, s.Synchronize())
			}
			for range 3 {
				run()
			}
			assert.Zero(t, testenv.AllocsPerCall(10, run), "%d elements (gpu shape %v): allocations per call + Synchronize", n, shape)
		}
	}
	forceGPUShape = false
}
