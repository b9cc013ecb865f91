package prim

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// mergeSizes are the merge sort's edges: empty, one, around a cpu run, a
// GPU tile (1024) and its multiples, non-powers of two, and 2^20.
var mergeSizes = []int{0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 2047, 2048, 3000, 4097, 65537, 100003, 1 << 20}

// mergeGPUShapeSizes run the GPU's launch shapes on the cpu agent.
var mergeGPUShapeSizes = []int{0, 1, 255, 1023, 1024, 1025, 2048, 3001, 5000}

// hostLess is the host's version of an ordering: whether a goes before b.
func hostLess[K Key](ord Ordering) func(a, b K) bool {
	total := func(k K) (int, float64) {
		switch x := any(k).(type) {
		case float32:
			return fclass(float64(x))
		case float64:
			return fclass(x)
		}
		return 1, 0
	}
	tl := func(a, b K) bool {
		if !isFloatKey[K]() {
			return a < b
		}
		ca, va := total(a)
		cb, vb := total(b)
		return ca < cb || ca == cb && va < vb
	}
	switch ord {
	case Descending:
		return func(a, b K) bool { return b < a }
	case TotalAscending:
		return tl
	case TotalDescending:
		return func(a, b K) bool { return tl(b, a) }
	}
	return func(a, b K) bool { return a < b }
}

// mergeInputs are the inputs a size is sorted as: random with repeats,
// all equal, sorted, reversed.
func mergeInputs[K Key](r *rand.Rand, n int, floatSpecials bool) map[string][]K {
	h := random[K](r, n)
	if n > 8 {
		for i := range n / 4 {
			h[r.IntN(n)] = h[i%7]
		}
	}
	if floatSpecials && isFloatKey[K]() && n > 8 {
		specials := []float64{math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1}
		for i := range n / 4 {
			j := r.IntN(n)
			switch p := any(&h[j]).(type) {
			case *float32:
				*p = float32(specials[i%len(specials)])
			case *float64:
				*p = specials[i%len(specials)]
			}
		}
	}
	sorted := slices.Clone(h)
	if !floatSpecials {
		slices.Sort(sorted)
	}
	rev := slices.Clone(sorted)
	slices.Reverse(rev)
	equal := make([]K, n)
	for i := range equal {
		equal[i] = 7
	}
	return map[string][]K{"random": h, "equal": equal, "sorted": sorted, "reversed": rev}
}

func sameKey[K Key](a, b K) bool {
	return math.Float64bits(toF(a)) == math.Float64bits(toF(b)) || toF(a) != toF(a) && toF(b) != toF(b)
}

func testMergeSort[K Key](t *testing.T, sizes []int, ords []Ordering) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(6, uint64(len(sizes))))
	for _, n := range sizes {
		for _, ord := range ords {
			specials := ord == TotalAscending || ord == TotalDescending
			for what, h := range mergeInputs[K](r, n, specials) {
				idx := make([]int32, n)
				for i := range idx {
					idx[i] = int32(i)
				}
				kin, kout := upload(t, dev, h), upload(t, dev, make([]K, n))
				vin, vout := upload(t, dev, slices.Clone(idx)), upload(t, dev, make([]int32, n))
				less := hostLess[K](ord)
				sort.SliceStable(idx, func(a, b int) bool { return less(h[idx[a]], h[idx[b]]) })
				checkKeys := func(how string) {
					got := download(t, s, kout)
					for i := range got {
						if want := h[idx[i]]; !sameKey(got[i], want) {
							t.Fatalf("%s %s n=%d ord=%d: keys[%d] = %v, want %v", how, what, n, ord, i, got[i], want)
						}
					}
				}
				require.NoError(t, MergeSortPairs(s, kin, kout, vin, vout, ord))
				if !assert.Equal(t, idx, download(t, s, vout), "%s n=%d ord=%d: the values (input indices)", what, n, ord) {
					return
				}
				checkKeys("pairs")
				require.NoError(t, kout.Fill(0))
				require.NoError(t, MergeSortKeys(s, kin, kout, ord))
				checkKeys("keys")
			}
		}
	}
}

func TestMergeSort(t *testing.T) {
	all := []Ordering{Ascending, Descending, TotalAscending, TotalDescending}
	mergeSizes := mergeSizes
	if raceflag.Enabled {
		mergeSizes = mergeSizes[:14] // the race detector's instrumentation: 2^20 takes minutes
	}
	t.Run("uint32", func(t *testing.T) { testMergeSort[uint32](t, mergeSizes, all[:2]) })
	t.Run("float32", func(t *testing.T) { testMergeSort[float32](t, mergeSizes, all) })
	t.Run("int64", func(t *testing.T) { testMergeSort[int64](t, mergeSizes[:14], all[:2]) })
	t.Run("float64", func(t *testing.T) { testMergeSort[float64](t, mergeSizes[:14], all[2:]) })
	t.Run("int8", func(t *testing.T) { testMergeSort[int8](t, mergeSizes[:12], all[:2]) })
	t.Run("uint16", func(t *testing.T) { testMergeSort[uint16](t, mergeSizes[:12], all[:1]) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/int32", func(t *testing.T) { testMergeSort[int32](t, mergeGPUShapeSizes, all[:2]) })
		t.Run("gpu-shape/float32", func(t *testing.T) { testMergeSort[float32](t, mergeGPUShapeSizes, all[2:]) })
		t.Run("gpu-shape/uint8", func(t *testing.T) { testMergeSort[uint8](t, mergeGPUShapeSizes[:6], all[:1]) })
	})
}

// A merge sort in place (keysOut keysIn, valsOut valsIn), into outputs
// longer than the input, and of views.
func TestMergeSortInPlace(t *testing.T) {
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		dev, s := newStream(t)
		r := rand.New(rand.NewPCG(7, 7))
		for _, n := range []int{1000, 5000} {
			h := random[float32](r, n)
			v := make([]uint64, n)
			for i := range v {
				v[i] = uint64(i) << 33
			}
			want := slices.Clone(h)
			wantV := slices.Clone(v)
			sort.Stable(byKey{want, wantV})
			k, vb := upload(t, dev, h), upload(t, dev, v)
			require.NoError(t, MergeSortPairs(s, k, k, vb, vb, Ascending))
			assert.Equal(t, want, download(t, s, k), "keys in place n=%d gpu shape %v", n, shape)
			assert.Equal(t, wantV, download(t, s, vb), "values in place n=%d gpu shape %v", n, shape)

			long := upload(t, dev, slices.Repeat([]float32{-5}, n+100))
			require.NoError(t, MergeSortKeys(s, upload(t, dev, h).Sub(0, n), long, Ascending))
			got := download(t, s, long)
			assert.Equal(t, want, got[:n], "into a longer output")
			assert.Equal(t, slices.Repeat([]float32{-5}, 100), got[n:], "past n untouched")
		}
	}
	forceGPUShape = false
}

type byKey struct {
	k []float32
	v []uint64
}

func (b byKey) Len() int           { return len(b.k) }
func (b byKey) Less(i, j int) bool { return b.k[i] < b.k[j] }
func (b byKey) Swap(i, j int) {
	b.k[i], b.k[j] = b.k[j], b.k[i]
	b.v[i], b.v[j] = b.v[j], b.v[i]
}

// Bad arguments are errors and queue nothing.
func TestMergeSortArguments(t *testing.T) {
	dev, s := newStream(t)
	in := upload(t, dev, []float32{3, 2, 1})
	short := upload(t, dev, []float32{})
	v := upload(t, dev, []int32{1})
	assert.ErrorIs(t, MergeSortKeys(s, in, short, Ascending), gpu.ErrInvalidValue)
	assert.ErrorIs(t, MergeSortKeys(s, in, in, Ordering(9)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, MergeSortKeys(s, in, in, Ordering(-1)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, MergeSortKeys[float32](nil, in, in, Ascending), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, MergeSortKeys[float32](s, nil, in, Ascending), gpu.ErrInvalidValue)
	assert.ErrorIs(t, MergeSortPairs(s, in, in, v, v, Ascending), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float32{3, 2, 1}, download(t, s, in), "nothing ran")
}
