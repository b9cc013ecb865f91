package prim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// The scans' test operations: lastSet keeps the last nonzero element (an
// associative operation that is not commutative, so a scan that swaps
// operands or combines out of order fails), wrapMul (reduce_with_test.go)
// a product that wraps, and fmax a maximum of floats.
type (
	lastSet struct{}
	fmax    struct{}
)

func (lastSet) Apply(a, b int64) int64 {
	if b != 0 {
		return b
	}
	return a
}
func (lastSet) Identity() int64 { return 0 }

func (fmax) Apply(a, b float32) float32 { return max(a, b) }
func (fmax) Identity() float32          { return float32(math.Inf(-1)) }

// The merge sorts' test comparators: by absolute value (ties keep their
// order), descending, and by the low four bits only (many ties).
type (
	byAbs      struct{}
	descending struct{}
	lowNibble  struct{}
)

func (byAbs) Less(a, b float64) bool    { return math.Abs(a) < math.Abs(b) }
func (descending) Less(a, b int32) bool { return a > b }
func (lowNibble) Less(a, b uint8) bool  { return a&15 < b&15 }

// scanGo is the scan in plain Go.
func scanGo[F ScanFunc[T], T Number](op F, x []T, exclusive bool) []T {
	out := make([]T, len(x))
	acc := op.Identity()
	for i, v := range x {
		if exclusive {
			out[i] = acc
		}
		acc = op.Apply(acc, v)
		if !exclusive {
			out[i] = acc
		}
	}
	return out
}

// sparse is n random int64 with most elements 0, so lastSet's runs are
// long.
func sparse(r *rand.Rand, n int) []int64 {
	x := make([]int64, n)
	for i := range x {
		if r.IntN(50) == 0 {
			x[i] = r.Int64N(1000) + 1
		}
	}
	return x
}

func testScanWith(t *testing.T, sizes []int) {
	dev, s := newStream(t)
	cpuAgent(t, dev)
	r := rand.New(rand.NewPCG(8, 9))
	for _, n := range sizes {
		l := sparse(r, n)
		m := random[int32](r, n)
		for k := range m {
			m[k] |= 1
		}
		f := random[float32](r, n)
		for _, ex := range []bool{false, true} {
			ol, om := upload(t, dev, make([]int64, n)), upload(t, dev, make([]int32, n))
			scan := InclusiveScanWith[lastSet, int64]
			scanM, scanF := InclusiveScanWith[wrapMul, int32], InclusiveScanWith[fmax, float32]
			if ex {
				scan, scanM, scanF = ExclusiveScanWith[lastSet, int64], ExclusiveScanWith[wrapMul, int32], ExclusiveScanWith[fmax, float32]
			}
			require.NoError(t, scan(s, lastSet{}, upload(t, dev, l), ol))
			require.NoError(t, scanM(s, wrapMul{}, upload(t, dev, m), om))
			in := upload(t, dev, f)
			require.NoError(t, scanF(s, fmax{}, in, in)) // in place
			assert.Equal(t, scanGo(lastSet{}, l, ex), download(t, s, ol), "lastSet n=%d exclusive=%v", n, ex)
			assert.Equal(t, scanGo(wrapMul{}, m, ex), download(t, s, om), "wrapMul n=%d exclusive=%v", n, ex)
			assert.Equal(t, scanGo(fmax{}, f, ex), download(t, s, in), "fmax in place n=%d exclusive=%v", n, ex)
		}
	}
}

// The scans with an operation give what a Go loop gives, in the cpu
// agent's shape and in the GPU's (three passes from five tiles on).
func TestScanWithMatchesGo(t *testing.T) {
	cpu, gpuShape := sizes, []int{0, 1, 255, 2816, 11264, 11265, 4 * 2816 * 3}
	if raceflag.Enabled { // the race detector's memory and time
		cpu, gpuShape = []int{0, 1, 257, 4097, 65537}, []int{1, 2816, 11265, 4 * 2816 * 2}
	}
	testScanWith(t, cpu)
	withGPUShape(t, func() {
		t.Run("gpu-shape", func(t *testing.T) { testScanWith(t, gpuShape) })
	})
}

func testMergeSortWith(t *testing.T, sizes []int) {
	dev, s := newStream(t)
	cpuAgent(t, dev)
	r := rand.New(rand.NewPCG(10, 11))
	for _, n := range sizes {
		f := random[float64](r, n)
		for i := range n / 3 {
			f[r.IntN(n)] = -f[i] // equal absolute values: ties
		}
		want := slices.Clone(f)
		slices.SortStableFunc(want, func(a, b float64) int {
			if byAbs.Less(byAbs{}, a, b) {
				return -1
			}
			if byAbs.Less(byAbs{}, b, a) {
				return 1
			}
			return 0
		})
		out := upload(t, dev, make([]float64, n))
		require.NoError(t, MergeSortWith(s, byAbs{}, upload(t, dev, f), out))
		assert.Equal(t, want, download(t, s, out), "byAbs n=%d", n)

		i := random[int32](r, n)
		wantI := slices.Clone(i)
		slices.Sort(wantI)
		slices.Reverse(wantI)
		in := upload(t, dev, i)
		require.NoError(t, MergeSortWith(s, descending{}, in, in)) // in place
		assert.Equal(t, wantI, download(t, s, in), "descending in place n=%d", n)

		// Pairs: the values are the keys' input places, so the order of
		// ties shows.
		u := random[uint8](r, n)
		idx := make([]int64, n)
		for k := range idx {
			idx[k] = int64(k)
		}
		wantIdx := slices.Clone(idx)
		slices.SortStableFunc(wantIdx, func(a, b int64) int { return int(u[a]&15) - int(u[b]&15) })
		wantU := make([]uint8, n)
		for k, j := range wantIdx {
			wantU[k] = u[j]
		}
		ku, vu := upload(t, dev, make([]uint8, n)), upload(t, dev, make([]int64, n))
		require.NoError(t, MergeSortPairsWith(s, lowNibble{}, upload(t, dev, u), ku, upload(t, dev, idx), vu))
		assert.Equal(t, wantU, download(t, s, ku), "lowNibble keys n=%d", n)
		assert.Equal(t, wantIdx, download(t, s, vu), "lowNibble values n=%d", n)
	}
}

// MergeSortWith sorts stably by the comparator, in the cpu agent's shape
// and in the GPU's.
func TestMergeSortWithMatchesGo(t *testing.T) {
	cpu, gpuShape := mergeSizes, mergeGPUShapeSizes
	if raceflag.Enabled { // the race detector's memory and time
		cpu, gpuShape = []int{0, 1, 33, 1025, 4097, 65537}, []int{1, 1025, 3001}
	}
	testMergeSortWith(t, cpu)
	withGPUShape(t, func() {
		t.Run("gpu-shape", func(t *testing.T) { testMergeSortWith(t, gpuShape) })
	})
}

// Bad calls are errors that queue nothing; a GPU without the generated
// kernels says which go generate to run.
func TestScanMergeWithErrors(t *testing.T) {
	dev, s := newStream(t)
	in, short := upload(t, dev, []int32{3, 1, 2}), upload(t, dev, []int32{0})
	assert.ErrorIs(t, InclusiveScanWith(nil, wrapMul{}, in, in), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, InclusiveScanWith(s, wrapMul{}, nil, in), gpu.ErrInvalidValue)
	assert.ErrorIs(t, ExclusiveScanWith(s, wrapMul{}, in, short), gpu.ErrInvalidValue)
	assert.ErrorContains(t, InclusiveScanWith(s, withState{k: 1}, in, in), "has fields")
	assert.ErrorIs(t, MergeSortWith(nil, descending{}, in, in), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, MergeSortWith(s, descending{}, in, short), gpu.ErrInvalidValue)
	assert.ErrorIs(t, MergeSortPairsWith(s, descending{}, in, in, short, short), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []int32{3, 1, 2}, download(t, s, in), "nothing ran")

	cpuFallback = false
	defer func() { cpuFallback = true }()
	type unseen struct{ wrapMul }
	err := InclusiveScanWith(s, unseen{}, in, in)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "go generate")
	assert.ErrorContains(t, err, "unseen")
	type unseenLess struct{ descending }
	err = MergeSortWith(s, unseenLess{}, in, in)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "MergeSortWith")
}
