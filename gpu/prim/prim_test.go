package prim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// sizes are the input sizes every primitive is checked at: empty, one,
// around a block, a GPU tile and the one-launch limit, and 2^20.
var sizes = underRace([]int{0, 1, 2, 31, 255, 257, 1000, 2816, 4097, 11265, 65536, 65537, 100003, 1 << 20},
	[]int{0, 1, 2, 31, 255, 257, 1000, 2816, 4097, 11265, 65536, 65537})

// gpuShapeSizes are the sizes the cpu agent runs the GPU's launch shapes
// at (as coroutines: slower, so smaller).
var gpuShapeSizes = underRace([]int{0, 1, 255, 257, 3000, 4097, 14000}, []int{1, 257, 4097})

func newStream(t testing.TB) (*gpu.Device, *stream.Stream) {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return dev, s
}

// withGPUShape runs f with the GPU's launch shapes on the cpu agent (and
// as they are on a GPU).
// withNewGPUPaths runs f with the GPU paths that have not yet run on a
// GPU switched on (the look-back scan, the one-pass selection, Onesweep):
// the cpu agent runs them in the GPU's launch shapes.
func withNewGPUPaths(f func()) {
	defer func(scan, sel, lsd bool) { singlePass, selectOnePassOn, sortLSD = scan, sel, lsd }(singlePass, selectOnePassOn, sortLSD)
	singlePass, selectOnePassOn, sortLSD = true, true, false
	f()
}

func withGPUShape(t *testing.T, f func()) {
	forceGPUShape = true
	defer func() { forceGPUShape = false }()
	f()
}

func random[T Number | Key](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		var v T
		switch p := any(&v).(type) {
		case *float32:
			*p = float32(r.NormFloat64() * 100)
		case *float64:
			*p = r.NormFloat64() * 1e6
		case *int8:
			*p = int8(r.Uint32())
		case *uint8:
			*p = uint8(r.Uint32())
		case *int16:
			*p = int16(r.Uint32())
		case *uint16:
			*p = uint16(r.Uint32())
		case *int32:
			*p = int32(r.Uint32()) >> 8 // sums stay in range
		case *uint32:
			*p = r.Uint32() >> 8
		case *int64:
			*p = int64(r.Uint64())
		case *uint64:
			*p = r.Uint64()
		}
		out[i] = v
	}
	return out
}

func upload[T any](t testing.TB, dev *gpu.Device, h []T) *buffer.Buffer[T] {
	b, err := buffer.New[T](dev, len(h))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	if len(h) > 0 {
		require.NoError(t, b.CopyFrom(h))
	}
	return b
}

func download[T any](t testing.TB, s *stream.Stream, b *buffer.Buffer[T]) []T {
	require.NoError(t, s.Synchronize())
	h := make([]T, b.Len())
	if len(h) > 0 {
		require.NoError(t, b.CopyTo(h))
	}
	return h
}

func isFloat[T any]() bool {
	var v T
	switch any(v).(type) {
	case float32, float64:
		return true
	}
	return false
}

// near compares a float result with a float64 reference within a
// relative bound scaled by the magnitudes summed.
func near[T Number](t *testing.T, want, got T, scale float64, msg string, args ...any) {
	if isFloat[T]() {
		assert.InDelta(t, float64(want), float64(got), 1e-5*scale+1e-6, append([]any{msg}, args...)...)
		return
	}
	assert.Equal(t, want, got, append([]any{msg}, args...)...)
}

func testReduce[T Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(1, uint64(len(sizes))))
	lo, hi := limits[T]()
	for _, n := range sizes {
		h := random[T](r, n)
		in := upload(t, dev, h)
		out := upload(t, dev, []T{7})
		idx := upload(t, dev, []int64{7})
		var sum T
		var abs float64
		mn, mx, imn, imx := hi, lo, int64(-1), int64(-1)
		for i, v := range h {
			sum += v
			abs += math.Abs(float64(v))
			if v < mn || imn < 0 {
				mn, imn = v, int64(i)
			}
			if v > mx || imx < 0 {
				mx, imx = v, int64(i)
			}
		}
		if n == 0 {
			mn, mx = hi, lo
		}
		require.NoError(t, Sum(s, in, out))
		near(t, sum, download(t, s, out)[0], abs, "sum n=%d", n)
		require.NoError(t, Min(s, in, out))
		assert.Equal(t, mn, download(t, s, out)[0], "min n=%d", n)
		require.NoError(t, Max(s, in, out))
		assert.Equal(t, mx, download(t, s, out)[0], "max n=%d", n)
		require.NoError(t, ArgMin(s, in, out, idx))
		assert.Equal(t, imn, download(t, s, idx)[0], "argmin n=%d", n)
		if n > 0 {
			assert.Equal(t, mn, download(t, s, out)[0], "argmin value n=%d", n)
		}
		require.NoError(t, ArgMax(s, in, out, idx))
		assert.Equal(t, imx, download(t, s, idx)[0], "argmax n=%d", n)
	}
}

func TestReduce(t *testing.T) {
	t.Run("int32", func(t *testing.T) { testReduce[int32](t, sizes) })
	t.Run("uint32", func(t *testing.T) { testReduce[uint32](t, sizes) })
	t.Run("int64", func(t *testing.T) { testReduce[int64](t, sizes) })
	t.Run("uint64", func(t *testing.T) { testReduce[uint64](t, sizes) })
	t.Run("float32", func(t *testing.T) { testReduce[float32](t, sizes) })
	t.Run("float64", func(t *testing.T) { testReduce[float64](t, sizes) })
	withTwoPasses(t, func() {
		t.Run("gpu-shape/int32", func(t *testing.T) { testReduce[int32](t, gpuShapeSizes) })
		t.Run("gpu-shape/float64", func(t *testing.T) { testReduce[float64](t, gpuShapeSizes) })
	})
}

// Ties go to the first index; equal values everywhere too.
func TestArgMinTies(t *testing.T) {
	dev, s := newStream(t)
	for _, n := range []int{3, 70000} {
		h := make([]float32, n)
		h[n-1], h[n/2], h[n/3+1] = -5, -5, 9
		in, out, idx := upload(t, dev, h), upload(t, dev, []float32{0}), upload(t, dev, []int64{0})
		require.NoError(t, ArgMin(s, in, out, idx))
		assert.Equal(t, int64(min(n/2, n-1)), download(t, s, idx)[0], "n=%d", n)
		require.NoError(t, ArgMax(s, in, out, idx))
		assert.Equal(t, int64(n/3+1), download(t, s, idx)[0], "n=%d", n)
		assert.Equal(t, float32(9), download(t, s, out)[0])
	}
}

func testScan[T Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(2, uint64(len(sizes))))
	for _, n := range sizes {
		h := random[T](r, n)
		in := upload(t, dev, h)
		out := upload(t, dev, make([]T, n))
		for _, exclusive := range []bool{false, true} {
			if exclusive {
				require.NoError(t, ExclusiveSum(s, in, out))
			} else {
				require.NoError(t, InclusiveSum(s, in, out))
			}
			got := download(t, s, out)
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
					t.Errorf("exclusive=%v n=%d: out[%d] = %v, want %v", exclusive, n, i, got[i], run)
				}
				if exclusive {
					run += v
				}
			}
		}
	}
}

func TestScan(t *testing.T) {
	t.Run("int32", func(t *testing.T) { testScan[int32](t, sizes) })
	t.Run("uint32", func(t *testing.T) { testScan[uint32](t, sizes) })
	t.Run("int64", func(t *testing.T) { testScan[int64](t, sizes) })
	t.Run("float32", func(t *testing.T) { testScan[float32](t, sizes) })
	t.Run("float64", func(t *testing.T) { testScan[float64](t, sizes) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/int32", func(t *testing.T) { testScan[int32](t, gpuShapeSizes) })
		t.Run("gpu-shape/float64", func(t *testing.T) { testScan[float64](t, gpuShapeSizes) })
		// The three launches (BenchmarkScan3Pass) and the look-back, the
		// default, both right.
		defer func(old bool) { singlePass = old }(singlePass)
		for _, one := range []bool{false, true} {
			singlePass = one
			t.Run(fmt.Sprintf("gpu-shape/single-pass=%v/int32", one), func(t *testing.T) { testScan[int32](t, gpuShapeSizes) })
		}
	})
}

// A scan in place reads each element before it writes it.
func TestScanInPlace(t *testing.T) {
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		dev, s := newStream(t)
		n := 40000
		h := make([]int32, n)
		for i := range h {
			h[i] = 1
		}
		b := upload(t, dev, h)
		require.NoError(t, InclusiveSum(s, b, b))
		got := download(t, s, b)
		assert.Equal(t, int32(1), got[0])
		assert.Equal(t, int32(n), got[n-1])
	}
	forceGPUShape = false
}

func testTransform[T Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(3, uint64(len(sizes))))
	for _, n := range sizes {
		x, y := random[T](r, n), random[T](r, n)
		for i := range y {
			if y[i] == 0 {
				y[i] = 1
			}
		}
		bx, by, out := upload(t, dev, x), upload(t, dev, y), upload(t, dev, make([]T, n))
		a := T(3)
		unary := map[UnaryOp]func(v T) T{
			Neg: func(v T) T { return -v }, Abs: func(v T) T {
				if v < 0 {
					return -v
				}
				return v
			},
			Square: func(v T) T { return v * v }, Scale: func(v T) T { return a * v }, AddScalar: func(v T) T { return v + a },
		}
		for op, f := range unary {
			require.NoError(t, Transform(s, bx, out, op, a))
			got := download(t, s, out)
			for i := range x {
				if want := f(x[i]); got[i] != want {
					t.Fatalf("op %d n=%d: out[%d] = %v, want %v", op, n, i, got[i], want)
				}
			}
		}
		binary := map[BinaryOp]func(u, v T) T{
			Add: func(u, v T) T { return u + v }, Sub: func(u, v T) T { return u - v }, Mul: func(u, v T) T { return u * v },
			Div: func(u, v T) T { return u / v }, Minimum: func(u, v T) T { return min(u, v) }, Maximum: func(u, v T) T { return max(u, v) },
		}
		for op, f := range binary {
			require.NoError(t, Transform2(s, bx, by, out, op))
			got := download(t, s, out)
			for i := range x {
				if want := f(x[i], y[i]); got[i] != want {
					t.Fatalf("op %d n=%d: out[%d] = %v, want %v", op, n, i, got[i], want)
				}
			}
		}
	}
}

func TestTransform(t *testing.T) {
	t.Run("int32", func(t *testing.T) { testTransform[int32](t, sizes) })
	t.Run("uint64", func(t *testing.T) { testTransform[uint64](t, sizes) })
	t.Run("float32", func(t *testing.T) { testTransform[float32](t, sizes) })
	t.Run("float64", func(t *testing.T) { testTransform[float64](t, sizes) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/float32", func(t *testing.T) { testTransform[float32](t, gpuShapeSizes) })
	})
}

// keyCmp is the order of integer keys.
func keyCmp[K Key](desc bool) func(a, b K) int {
	return func(a, b K) int {
		if desc {
			return cmp.Compare(b, a)
		}
		return cmp.Compare(a, b)
	}
}

// refSort is a stable sort of the keys (with their indices) by the
// documented order.
func refSort[K Key](keys []K, desc bool) ([]K, []int32) {
	idx := make([]int32, len(keys))
	for i := range idx {
		idx[i] = int32(i)
	}
	c := keyCmp[K](desc)
	rank := func(k K) (int, float64) {
		switch x := any(k).(type) {
		case float32:
			return fclass(float64(x))
		case float64:
			return fclass(x)
		}
		return 0, 0
	}
	slices.SortStableFunc(idx, func(a, b int32) int {
		ca, va := rank(keys[a])
		cb, vb := rank(keys[b])
		if ca != 0 || cb != 0 || isFloatKey[K]() {
			r := cmp.Compare(ca, cb)
			if r == 0 {
				r = cmp.Compare(va, vb)
			}
			if desc {
				r = -r
			}
			return r
		}
		return c(keys[a], keys[b])
	})
	out := make([]K, len(keys))
	for i, j := range idx {
		out[i] = keys[j]
	}
	return out, idx
}

func isFloatKey[K Key]() bool {
	var k K
	switch any(k).(type) {
	case float32, float64:
		return true
	}
	return false
}

// fclass ranks a float: -NaN 0, numbers 1 (by value, -0 == +0), +NaN 2.
func fclass(x float64) (int, float64) {
	if math.IsNaN(x) {
		if math.Signbit(x) {
			return 0, 0
		}
		return 2, 0
	}
	return 1, x
}

func testSort[K Key](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(4, uint64(len(sizes))))
	for _, n := range sizes {
		h := random[K](r, n)
		if isFloatKey[K]() && n > 8 {
			// The special values, and many equal keys to see stability.
			specials := []float64{math.NaN(), -math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1}
			for i := range n / 4 {
				j := r.IntN(n)
				v := specials[i%len(specials)]
				switch p := any(&h[j]).(type) {
				case *float32:
					*p = float32(v)
				case *float64:
					*p = v
				}
			}
		} else if n > 8 {
			for i := range n / 4 {
				h[r.IntN(n)] = h[i%7]
			}
		}
		kin := upload(t, dev, h)
		kout := upload(t, dev, make([]K, n))
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(i)
		}
		vin := upload(t, dev, vals)
		vout := upload(t, dev, make([]int32, n))
		for _, desc := range []bool{false, true} {
			want, wantIdx := refSort(h, desc)
			if pairsFor[K, int32]() != nil {
				require.NoError(t, radixSort(s, kin, kout, vin, vout, SortOrder{Descending: desc}, true))
				gotIdx := download(t, s, vout)
				got := download(t, s, kout)
				if !assert.Equal(t, wantIdx, gotIdx, "pairs desc=%v n=%d: the values (input indices)", desc, n) {
					return
				}
				for i := range got {
					if math.Float64bits(toF(got[i])) != math.Float64bits(toF(want[i])) && !(toF(got[i]) != toF(got[i]) && toF(want[i]) != toF(want[i])) {
						t.Fatalf("desc=%v n=%d: keys[%d] = %v, want %v", desc, n, i, got[i], want[i])
					}
				}
			} else {
				err := radixSort(s, kin, kout, vin, vout, SortOrder{Descending: desc}, true)
				require.ErrorIs(t, err, gpu.ErrNotSupported)
			}
			require.NoError(t, SortKeys(s, kin, kout, SortOrder{Descending: desc}))
			got := download(t, s, kout)
			for i := range got {
				if math.Float64bits(toF(got[i])) != math.Float64bits(toF(want[i])) && !(toF(got[i]) != toF(got[i]) && toF(want[i]) != toF(want[i])) {
					t.Fatalf("keys desc=%v n=%d: keys[%d] = %v, want %v", desc, n, i, got[i], want[i])
				}
			}
		}
	}
}

func toF[K Key](k K) float64 {
	switch x := any(k).(type) {
	case float32:
		return float64(x)
	case float64:
		return x
	case uint64:
		return math.Float64frombits(x) // compared bitwise
	case int64:
		return math.Float64frombits(uint64(x))
	}
	return float64(k)
}

func TestRadixSort(t *testing.T) {
	t.Run("uint32", func(t *testing.T) { testSort[uint32](t, sizes) })
	t.Run("int32", func(t *testing.T) { testSort[int32](t, sizes) })
	t.Run("float32", func(t *testing.T) { testSort[float32](t, sizes) })
	t.Run("float64", func(t *testing.T) { testSort[float64](t, sizes[:12]) })
	t.Run("int64", func(t *testing.T) { testSort[int64](t, sizes[:12]) })
	t.Run("uint64", func(t *testing.T) { testSort[uint64](t, sizes[:12]) })
	t.Run("int8", func(t *testing.T) { testSort[int8](t, sizes[:12]) })
	t.Run("uint8", func(t *testing.T) { testSort[uint8](t, sizes[:12]) })
	t.Run("int16", func(t *testing.T) { testSort[int16](t, sizes[:12]) })
	t.Run("uint16", func(t *testing.T) { testSort[uint16](t, sizes[:12]) })
	if raceflag.Enabled {
		return // TestOnesweep sorts in the GPU's shapes under the race detector
	}
	withGPUShape(t, func() {
		t.Run("gpu-shape/uint32", func(t *testing.T) { testSort[uint32](t, gpuShapeSizes) })
		t.Run("gpu-shape/float32", func(t *testing.T) { testSort[float32](t, gpuShapeSizes) })
		t.Run("gpu-shape/int16", func(t *testing.T) { testSort[int16](t, gpuShapeSizes) })
	})
}

// A bit range sorts by those bits alone, stably; a sort in place works
// for an odd number of passes too.
func TestRadixSortBitsInPlace(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(5, 5))
	h := random[uint32](r, 50000)
	for _, bits := range [][2]int{{0, 8}, {4, 20}, {8, 32}, {0, 0}, {3, 3}} {
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
}

// Bad arguments are errors and queue nothing.
func TestArguments(t *testing.T) {
	dev, s := newStream(t)
	in := upload(t, dev, []float32{1, 2, 3})
	short := upload(t, dev, []float32{})
	assert.ErrorIs(t, Sum(s, in, short), gpu.ErrInvalidValue)
	assert.ErrorIs(t, Sum[float32](s, nil, in), gpu.ErrInvalidValue)
	assert.ErrorIs(t, Sum[float32](nil, in, in), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, Reduce(s, in, in, Op(9)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, InclusiveSum(s, in, short), gpu.ErrInvalidValue)
	assert.ErrorIs(t, Transform2(s, short, in, in, Add), gpu.ErrInvalidValue)
	assert.ErrorIs(t, Transform(s, in, in, UnaryOp(-1), 0), gpu.ErrInvalidValue)
	assert.ErrorIs(t, SortKeys(s, in, short, SortOrder{}), gpu.ErrInvalidValue)
	assert.ErrorIs(t, SortKeys(s, in, in, SortOrder{BeginBit: 4, EndBit: 33}), gpu.ErrInvalidValue)
	assert.ErrorIs(t, SortKeys(s, in, in, SortOrder{BeginBit: 9, EndBit: 8}), gpu.ErrInvalidValue)
	v := upload(t, dev, []int32{1})
	assert.ErrorIs(t, SortPairs(s, in, in, v, v, SortOrder{}), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float32{1, 2, 3}, download(t, s, in), "nothing ran")
}

func testHistogram[T Sample](t *testing.T, sizes []int, lower, upper float64, bins int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(6, uint64(bins)))
	for _, n := range sizes {
		h := make([]T, n)
		for i := range h {
			var v T
			switch p := any(&v).(type) {
			case *uint8:
				*p = uint8(r.Uint32())
			case *uint16:
				*p = uint16(r.Uint32())
			case *int32:
				*p = int32(r.IntN(3000)) - 1500
			case *uint32:
				*p = r.Uint32()
			case *float32:
				*p = float32(r.NormFloat64() * 2)
			case *float64:
				*p = r.NormFloat64() * 2
			}
			h[i] = v
		}
		if n > 2 && isFloat[T]() {
			var nan T
			switch p := any(&nan).(type) {
			case *float32:
				*p = float32(math.NaN())
			case *float64:
				*p = math.NaN()
			}
			h[0], h[1] = nan, T(upper) // neither counts
		}
		want := make([]uint32, bins)
		scale := float64(bins) / (upper - lower)
		for _, x := range h {
			f := float64(x)
			if !(f >= lower && f < upper) {
				continue
			}
			b := min(int((f-lower)*scale), bins-1)
			if !isFloat[T]() {
				b = int((int64(x) - int64(lower)) * int64(bins) / int64(upper-lower))
			}
			want[b]++
		}
		in := upload(t, dev, h)
		hist := upload(t, dev, make([]uint32, bins))
		require.NoError(t, HistogramEven(s, in, hist, lower, upper))
		assert.Equal(t, want, download(t, s, hist), "n=%d", n)
	}
}

func TestHistogramEven(t *testing.T) {
	t.Run("uint8/256", func(t *testing.T) { testHistogram[uint8](t, sizes, 0, 256, 256) })
	t.Run("uint8/10", func(t *testing.T) { testHistogram[uint8](t, sizes, 3, 250, 10) })
	t.Run("uint16/100", func(t *testing.T) { testHistogram[uint16](t, sizes, 100, 60000, 100) })
	t.Run("int32/7", func(t *testing.T) { testHistogram[int32](t, sizes, -1000, 1000, 7) })
	t.Run("uint32/4096", func(t *testing.T) { testHistogram[uint32](t, sizes, 0, 1<<32, 4096) })
	t.Run("float32/50", func(t *testing.T) { testHistogram[float32](t, sizes, -3, 3, 50) })
	t.Run("float64/1", func(t *testing.T) { testHistogram[float64](t, sizes, -1, 1, 1) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/uint8", func(t *testing.T) { testHistogram[uint8](t, gpuShapeSizes, 0, 256, 256) })
		t.Run("gpu-shape/float32", func(t *testing.T) { testHistogram[float32](t, gpuShapeSizes, -3, 3, 50) })
	})
	_, s := newStream(t)
	dev := s.Device()
	in, hist := upload(t, dev, []float32{1}), upload(t, dev, make([]uint32, 4))
	assert.ErrorIs(t, HistogramEven(s, in, hist, 2, 1), gpu.ErrInvalidValue)
	assert.ErrorIs(t, HistogramEven(s, upload(t, dev, []int32{1}), hist, 0.5, 1), gpu.ErrInvalidValue)
	assert.ErrorIs(t, HistogramEven(s, in, upload(t, dev, make([]uint32, 5000)), 0, 1), gpu.ErrInvalidValue)
}
