package prim

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// runsOf is n small integer values in runs of 1 to maxRun equal ones:
// inputs of Unique, RunLengthEncode and the scans by key. Small integers
// keep float sums exact.
func runsOf[T Number | Key](r *rand.Rand, n, maxRun int) []T {
	out := make([]T, n)
	v := T(r.IntN(100))
	for i := 0; i < n; {
		k := 1 + r.IntN(maxRun)
		for ; k > 0 && i < n; k-- {
			out[i] = v
			i++
		}
		v = T(r.IntN(100))
	}
	return out
}

func smallInts[T Number](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(r.IntN(100))
	}
	return out
}

// The sizes of these tests: the package's sizes and the edges of a GPU
// selection's tile.
var selectSizes = append([]int{selectTile - 1, selectTile, selectTile + 1, 3*selectTile + 5}, sizes...)

func testSelect[T Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(5, uint64(len(sizes))))
	for _, n := range sizes {
		h := random[T](r, n)
		fl := make([]uint8, n)
		want, rest := []T{}, []T{}
		for i := range fl {
			if r.IntN(3) == 0 {
				fl[i] = uint8(1 + r.IntN(255))
				want = append(want, h[i])
			} else {
				rest = append(rest, h[i])
			}
		}
		in, flags := upload(t, dev, h), upload(t, dev, fl)
		out := upload(t, dev, make([]T, n))
		num := upload(t, dev, []int64{-7})

		require.NoError(t, SelectFlagged(s, in, flags, out, num))
		got, cnt := download(t, s, out), download(t, s, num)
		require.Equal(t, int64(len(want)), cnt[0], "flagged n=%d", n)
		assert.Equal(t, want, got[:len(want)], "flagged n=%d", n)

		require.NoError(t, PartitionFlagged(s, in, flags, out, num))
		got, cnt = download(t, s, out), download(t, s, num)
		require.Equal(t, int64(len(want)), cnt[0], "partition n=%d", n)
		assert.Equal(t, append(append([]T{}, want...), rest...), got, "partition n=%d", n)

		var a T
		if n > 0 {
			a = h[n/2]
		}
		for op := Less; op <= NotEqual; op++ {
			sel, oth := []T{}, []T{}
			for _, x := range h {
				if holds(x, op, a) {
					sel = append(sel, x)
				} else {
					oth = append(oth, x)
				}
			}
			require.NoError(t, SelectIf(s, in, out, num, op, a))
			got, cnt = download(t, s, out), download(t, s, num)
			require.Equal(t, int64(len(sel)), cnt[0], "if %d n=%d", op, n)
			assert.Equal(t, sel, got[:len(sel)], "if %d n=%d", op, n)
			if op == Greater {
				require.NoError(t, PartitionIf(s, in, out, num, op, a))
				got, cnt = download(t, s, out), download(t, s, num)
				require.Equal(t, int64(len(sel)), cnt[0], "partition if n=%d", n)
				assert.Equal(t, append(sel, oth...), got, "partition if n=%d", n)
			}
		}

		// Runs: Unique and RunLengthEncode.
		hr := runsOf[T](r, n, 9)
		uniq, lens := []T{}, []int64{}
		for i, x := range hr {
			if i == 0 || x != hr[i-1] {
				uniq = append(uniq, x)
				lens = append(lens, 0)
			}
			lens[len(lens)-1]++
		}
		rin := upload(t, dev, hr)
		require.NoError(t, Unique(s, rin, out, num))
		got, cnt = download(t, s, out), download(t, s, num)
		require.Equal(t, int64(len(uniq)), cnt[0], "unique n=%d", n)
		assert.Equal(t, uniq, got[:len(uniq)], "unique n=%d", n)

		counts := upload(t, dev, make([]int64, n))
		require.NoError(t, RunLengthEncode(s, rin, out, counts, num))
		got, cnt = download(t, s, out), download(t, s, num)
		gotLens := download(t, s, counts)
		require.Equal(t, int64(len(uniq)), cnt[0], "rle n=%d", n)
		assert.Equal(t, uniq, got[:len(uniq)], "rle values n=%d", n)
		assert.Equal(t, lens, gotLens[:len(lens)], "rle counts n=%d", n)
	}
}

func holds[T Number](x T, op SelectOp, a T) bool {
	switch op {
	case Less:
		return x < a
	case LessEqual:
		return x <= a
	case Greater:
		return x > a
	case GreaterEqual:
		return x >= a
	case Equal:
		return x == a
	}
	return x != a
}

func TestSelect(t *testing.T) {
	t.Run("int32", func(t *testing.T) { testSelect[int32](t, selectSizes) })
	t.Run("uint64", func(t *testing.T) { testSelect[uint64](t, selectSizes) })
	t.Run("float32", func(t *testing.T) { testSelect[float32](t, selectSizes) })
	t.Run("float64", func(t *testing.T) { testSelect[float64](t, sizes) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/int32", func(t *testing.T) { testSelect[int32](t, append(gpuShapeSizes, selectTile, selectTile+1)) })
		t.Run("gpu-shape/float64", func(t *testing.T) { testSelect[float64](t, gpuShapeSizes) })
	})
}

// NaNs: a NaN is selected by NotEqual only, and each is a run of its own.
func TestSelectNaN(t *testing.T) {
	dev, s := newStream(t)
	nan := float32(math.NaN())
	in := upload(t, dev, []float32{1, nan, nan, 2, 2, float32(math.Copysign(0, -1)), 0})
	out := upload(t, dev, make([]float32, 7))
	num := upload(t, dev, []int64{0})
	counts := upload(t, dev, make([]int64, 7))
	require.NoError(t, SelectIf(s, in, out, num, Less, 2))
	assert.Equal(t, int64(3), download(t, s, num)[0], "1, -0, 0")
	require.NoError(t, SelectIf(s, in, out, num, NotEqual, 2))
	assert.Equal(t, int64(5), download(t, s, num)[0])
	require.NoError(t, RunLengthEncode(s, in, out, counts, num))
	assert.Equal(t, int64(5), download(t, s, num)[0], "1 | NaN | NaN | 2 2 | -0 0")
	assert.Equal(t, []int64{1, 1, 1, 2, 2}, download(t, s, counts)[:5])
}

func testSegmented[T Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(6, uint64(len(sizes))))
	for _, n := range sizes {
		h := smallInts[T](r, n)
		// Segments: empty ones, short ones, and one long one.
		offs := []int64{0}
		for o := int64(0); o < int64(n); {
			var l int64
			switch r.IntN(8) {
			case 0:
				l = 0
			case 1:
				l = int64(r.IntN(n + 1))
			default:
				l = int64(r.IntN(40))
			}
			o = min(o+l, int64(n))
			offs = append(offs, o)
		}
		offs = append(offs, int64(n)) // an empty last segment
		ns := len(offs) - 1
		in, ob := upload(t, dev, h), upload(t, dev, offs)
		out := upload(t, dev, make([]T, ns))
		lo, hi := limits[T]()
		// Each op through its named entry point, which must pick that op.
		named := map[Op]func(*stream.Stream, buffer.Array[T], buffer.Array[T], buffer.Array[int64]) error{
			OpSum: SegmentedSum[T], OpMin: SegmentedMin[T], OpMax: SegmentedMax[T],
		}
		for _, op := range []Op{OpSum, OpMin, OpMax} {
			require.NoError(t, named[op](s, in, out, ob))
			got := download(t, s, out)
			for g := 0; g < ns; g++ {
				want := map[Op]T{OpMin: hi, OpMax: lo}[op]
				var w64 float64
				for _, x := range h[offs[g]:offs[g+1]] {
					switch op {
					case OpSum:
						want += x
						w64 += float64(x)
					case OpMin:
						want = min(want, x)
					case OpMax:
						want = max(want, x)
					}
				}
				ok := true
				if isFloat[T]() && op == OpSum {
					ok = assert.InDelta(t, w64, float64(got[g]), 1e-6*w64, "%v n=%d segment %d of %d [%d, %d)", op, n, g, ns, offs[g], offs[g+1])
				} else {
					ok = assert.Equal(t, want, got[g], "%v n=%d segment %d of %d [%d, %d)", op, n, g, ns, offs[g], offs[g+1])
				}
				if !ok {
					break
				}
			}
		}
	}
}

func TestSegmentedReduce(t *testing.T) {
	t.Run("int32", func(t *testing.T) { testSegmented[int32](t, sizes) })
	t.Run("uint32", func(t *testing.T) { testSegmented[uint32](t, sizes) })
	t.Run("int64", func(t *testing.T) { testSegmented[int64](t, sizes) })
	t.Run("float32", func(t *testing.T) { testSegmented[float32](t, sizes) })
	t.Run("float64", func(t *testing.T) { testSegmented[float64](t, sizes) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/int32", func(t *testing.T) { testSegmented[int32](t, gpuShapeSizes) })
		t.Run("gpu-shape/float64", func(t *testing.T) { testSegmented[float64](t, gpuShapeSizes) })
	})
}

// Offsets out of order or outside in are clamped: no read outside in.
func TestSegmentedReduceBadOffsets(t *testing.T) {
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		dev, s := newStream(t)
		in := upload(t, dev, []int32{1, 2, 3, 4})
		offs := upload(t, dev, []int64{-5, 2, 1, 100, 3})
		out := upload(t, dev, make([]int32, 4))
		require.NoError(t, SegmentedSum(s, in, out, offs))
		assert.Equal(t, []int32{3, 0, 9, 0}, download(t, s, out), "gpu shape %v", shape)
	}
	forceGPUShape = false
}

func testScanByKey[K Key, V Number](t *testing.T, sizes []int) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(8, uint64(len(sizes))))
	for _, n := range sizes {
		keys := runsOf[K](r, n, 60)
		h := smallInts[V](r, n)
		incl, excl := make([]V, n), make([]V, n)
		var run V
		for i, x := range h {
			if i == 0 || keys[i] != keys[i-1] {
				run = 0
			}
			excl[i] = run
			run += x
			incl[i] = run
		}
		kb, in := upload(t, dev, keys), upload(t, dev, h)
		out := upload(t, dev, make([]V, n))
		require.NoError(t, InclusiveSumByKey(s, kb, in, out))
		assert.Equal(t, incl, download(t, s, out), "inclusive n=%d", n)
		require.NoError(t, ExclusiveSumByKey(s, kb, in, out))
		assert.Equal(t, excl, download(t, s, out), "exclusive n=%d", n)
		require.NoError(t, InclusiveSumByKey(s, kb, in, in))
		assert.Equal(t, incl, download(t, s, in), "in place n=%d", n)
	}
}

func TestScanByKey(t *testing.T) {
	t.Run("int32/int32", func(t *testing.T) { testScanByKey[int32, int32](t, sizes) })
	t.Run("uint8/float32", func(t *testing.T) { testScanByKey[uint8, float32](t, sizes) })
	t.Run("float64/int64", func(t *testing.T) { testScanByKey[float64, int64](t, sizes) })
	t.Run("uint64/float64", func(t *testing.T) { testScanByKey[uint64, float64](t, sizes) })
	withGPUShape(t, func() {
		t.Run("gpu-shape/int32/int32", func(t *testing.T) { testScanByKey[int32, int32](t, gpuShapeSizes) })
		t.Run("gpu-shape/int16/float64", func(t *testing.T) { testScanByKey[int16, float64](t, gpuShapeSizes) })
	})
	// One run over everything: the carry crosses every tile.
	dev, s := newStream(t)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		n := 30000
		keys := upload(t, dev, make([]uint32, n))
		ones := make([]int32, n)
		for i := range ones {
			ones[i] = 1
		}
		in := upload(t, dev, ones)
		require.NoError(t, InclusiveSumByKey(s, keys, in, in))
		got := download(t, s, in)
		assert.Equal(t, int32(n), got[n-1], "gpu shape %v", shape)
	}
	forceGPUShape = false
}

func TestMoreArguments(t *testing.T) {
	dev, s := newStream(t)
	in := upload(t, dev, []int32{1, 2, 3})
	short := upload(t, dev, []int32{0})
	flags := upload(t, dev, []uint8{1, 0, 1})
	num := upload(t, dev, []int64{0})
	offs := upload(t, dev, []int64{0, 1, 3})
	var nilI32 buffer.Array[int32]
	var nilS *stream.Stream
	for name, err := range map[string]error{
		"select short out":       SelectFlagged(s, in, flags, short, num),
		"select short flags":     SelectFlagged(s, in, flags.Sub(0, 2), in, num),
		"select nil num":         SelectFlagged(s, in, flags, in, nil),
		"select nil stream":      SelectFlagged(nilS, in, flags, in, num),
		"select if predicate":    SelectIf(s, in, in, num, SelectOp(99), 0),
		"partition in place":     PartitionFlagged(s, in, flags, in, num),
		"partition if predicate": PartitionIf(s, in, short, num, SelectOp(-1), 0),
		"unique nil in":          Unique(s, nilI32, in, num),
		"rle short counts":       RunLengthEncode(s, in, in, num, num),
		"rle short unique":       RunLengthEncode(s, in, short, upload(t, dev, make([]int64, 3)), num),
		"segmented short out":    SegmentedSum(s, in, short, offs),
		"segmented no offsets":   SegmentedSum(s, in, in, upload(t, dev, []int64{})),
		"segmented op":           SegmentedReduce(s, in, in, offs, Op(9)),
		"scan by key short keys": InclusiveSumByKey(s, short, in, in),
		"scan by key short out":  ExclusiveSumByKey(s, in, in, short),
		"scan by key nil in":     InclusiveSumByKey(s, in, nilI32, in),
	} {
		if !errors.Is(err, gpu.ErrInvalidHandle) {
			assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		}
	}
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []int32{1, 2, 3}, download(t, s, in), "nothing was queued")
	assert.Equal(t, []int64{0}, download(t, s, num))
}
