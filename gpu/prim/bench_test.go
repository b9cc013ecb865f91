package prim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// benchSizes are the benchmarks' element counts as powers of two:
// HIPGO_PRIM_SIZES (comma-separated, "20,24,26,28"), else 20, 24, 26.
func benchSizes() []int {
	logs := []int{20, 24, 26}
	if v := os.Getenv("HIPGO_PRIM_SIZES"); v != "" {
		logs = logs[:0]
		for f := range strings.SplitSeq(v, ",") {
			if l, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
				logs = append(logs, l)
			}
		}
	}
	return logs
}

func sizeOf[T any]() int64 {
	var v T
	return int64(unsafe.Sizeof(v))
}

// benchData is a device buffer of n random elements, kept for the
// benchmark.
func benchData[T Number | Key](b *testing.B, s *stream.Stream, n int, seed uint64) *buffer.Buffer[T] {
	return upload(b, s.Device(), hostData[T](n, seed))
}

// hostData is n random elements, made once per type, size and seed: the
// benchmarks' repeats reuse them.
func hostData[T Number | Key](n int, seed uint64) []T {
	type key struct {
		t    string
		n    int
		seed uint64
	}
	k := key{fmt.Sprintf("%T", *new(T)), n, seed}
	hostMu.Lock()
	defer hostMu.Unlock()
	if h, ok := hostCache[k]; ok {
		return h.([]T)
	}
	h := random[T](rand.New(rand.NewPCG(seed, 9)), n)
	hostCache[k] = h
	return h
}

var (
	hostMu    sync.Mutex
	hostCache = map[any]any{}
)

func benchEach(b *testing.B, f func(b *testing.B, n int)) {
	for _, l := range benchSizes() {
		b.Run(fmt.Sprintf("2^%d", l), func(b *testing.B) { f(b, 1<<l) })
	}
}

func BenchmarkTransformAdd(b *testing.B) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		x, y, z := benchData[float32](b, s, n, 1), benchData[float32](b, s, n, 2), benchData[float32](b, s, n, 3)
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return Transform2(s, x, y, z, Add) }, gputest.Bytes(12*int64(n)))
	})
}

// BenchmarkCopy is the device-to-device copy Transform's target is a
// fraction of.
func BenchmarkCopy(b *testing.B) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		x, z := benchData[float32](b, s, n, 1), benchData[float32](b, s, n, 3)
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return s.Copy(z, 0, x, 0, n) }, gputest.Bytes(8*int64(n)))
	})
}

func benchReduce[T Number](b *testing.B, op string) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		x := benchData[T](b, s, n, 1)
		out := benchData[T](b, s, 1, 2)
		idx := benchData[int64](b, s, 1, 3)
		f := map[string]func() error{
			"sum":    func() error { return Sum(s, x, out) },
			"min":    func() error { return Min(s, x, out) },
			"argmin": func() error { return ArgMin(s, x, out, idx) },
		}[op]
		b.ReportAllocs()
		gputest.Benchmark(b, s, f, gputest.Bytes(sizeOf[T]()*int64(n)))
	})
}

func BenchmarkReduce(b *testing.B) {
	b.Run("sum/float32", func(b *testing.B) { benchReduce[float32](b, "sum") })
	b.Run("sum/int32", func(b *testing.B) { benchReduce[int32](b, "sum") })
	b.Run("sum/float64", func(b *testing.B) { benchReduce[float64](b, "sum") })
	b.Run("min/float32", func(b *testing.B) { benchReduce[float32](b, "min") })
	b.Run("argmin/float32", func(b *testing.B) { benchReduce[float32](b, "argmin") })
}

func benchScan[T Number](b *testing.B, exclusive bool) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		x, out := benchData[T](b, s, n, 1), benchData[T](b, s, n, 2)
		f := func() error { return InclusiveSum(s, x, out) }
		if exclusive {
			f = func() error { return ExclusiveSum(s, x, out) }
		}
		b.ReportAllocs()
		gputest.Benchmark(b, s, f, gputest.Bytes(2*sizeOf[T]()*int64(n)))
	})
}

// The benchmarks of the scans, selections and sorts measure the GPU
// paths that are off by default until they have run on a GPU
// (withNewGPUPaths); BenchmarkScan3Pass, BenchmarkScanByKey3Pass and the
// LSD sorts measure the paths on by default.
func BenchmarkScan(b *testing.B) {
	defer func(old bool) { singlePass = old }(singlePass)
	singlePass = true
	b.Run("inclusive_sum/int32", func(b *testing.B) { benchScan[int32](b, false) })
	b.Run("exclusive_sum/int32", func(b *testing.B) { benchScan[int32](b, true) })
	b.Run("inclusive_sum/float32", func(b *testing.B) { benchScan[float32](b, false) })
	b.Run("exclusive_sum/float32", func(b *testing.B) { benchScan[float32](b, true) })
}

// BenchmarkScan3Pass is the GPU's scan as reduce-then-scan (three
// launches), and BenchmarkScanLookBack as one launch with decoupled
// look-back at a few tile shapes (work-items b, elements of 4 bytes a
// work-item i; the default shape is the one BenchmarkScan measures).
func BenchmarkScan3Pass(b *testing.B) {
	defer func(old bool) { singlePass = old }(singlePass)
	singlePass = false
	b.Run("inclusive_sum/int32", func(b *testing.B) { benchScan[int32](b, false) })
	b.Run("inclusive_sum/float32", func(b *testing.B) { benchScan[float32](b, false) })
}

func BenchmarkScanLookBack(b *testing.B) {
	defer func(old bool) { singlePass = old }(singlePass)
	singlePass = true
	defer func(bl, i4 int) { lbBlock, lbItems4 = bl, i4 }(lbBlock, lbItems4)
	for _, sh := range [][2]int{{128, 15}, {128, 23}, {192, 23}, {256, 11}, {256, 15}, {256, 19}, {512, 11}} {
		lbBlock, lbItems4 = sh[0], sh[1]
		name := fmt.Sprintf("b%d_i%d", sh[0], sh[1])
		b.Run(name+"/inclusive_sum/int32", func(b *testing.B) { benchScan[int32](b, false) })
		b.Run(name+"/exclusive_sum/float32", func(b *testing.B) { benchScan[float32](b, true) })
	}
}

// BenchmarkSegmentedReduce sums segments of 1024 elements.
func BenchmarkSegmentedReduce(b *testing.B) {
	_, s := newStream(b)
	b.Run("sum/float32", func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			x := benchData[float32](b, s, n, 1)
			offs := make([]int64, n/1024+1)
			for i := range offs {
				offs[i] = int64(i) * 1024
			}
			ob := upload(b, s.Device(), offs)
			out := benchData[float32](b, s, len(offs)-1, 2)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return SegmentedSum(s, x, out, ob) }, gputest.Bytes(4*int64(n)))
		})
	})
}

// benchFlags is n flags, about half of them set.
func benchFlags(b *testing.B, s *stream.Stream, n int) *buffer.Buffer[uint8] {
	h := hostData[uint8](n, 11)
	f := make([]uint8, n)
	for i, v := range h {
		f[i] = v & 1
	}
	return upload(b, s.Device(), f)
}

// runsData is n int32s in runs of 8 (value i/8), the input of Unique and
// RunLengthEncode, as the CUB peer makes it.
func runsData(b *testing.B, s *stream.Stream, n, run int) *buffer.Buffer[int32] {
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i / run)
	}
	return upload(b, s.Device(), h)
}

// selectShapes are the one-pass selection's tile shapes (work-items,
// elements each) that BenchmarkSelect and BenchmarkRunLengthEncode try
// beside the default one, under names ending in shape=BxI.
var selectShapes = [][2]int{{128, 16}, {256, 8}, {256, 12}, {256, 24}, {128, 32}}

// withShapes runs f at the default tile shape under name, then at each
// of selectShapes under name/shape=BxI.
func withShapes(b *testing.B, name string, f func(b *testing.B)) {
	b.Run(name, f)
	for _, sh := range selectShapes {
		b.Run(fmt.Sprintf("%s/shape=%dx%d", name, sh[0], sh[1]), func(b *testing.B) {
			defer func(bl, it int) { selectBlock, selectItems = bl, it }(selectBlock, selectItems)
			selectBlock, selectItems = sh[0], sh[1]
			f(b)
		})
	}
}

func BenchmarkSelect(b *testing.B) {
	defer func(old bool) { selectOnePassOn = old }(selectOnePassOn)
	selectOnePassOn = true
	_, s := newStream(b)
	for _, op := range []string{"flagged", "partition_flagged", "unique", "if"} {
		withShapes(b, op+"/int32", func(b *testing.B) {
			benchEach(b, func(b *testing.B, n int) {
				x, out := benchData[int32](b, s, n, 1), benchData[int32](b, s, n, 2)
				num := benchData[int64](b, s, 1, 3)
				fl := benchFlags(b, s, n)
				f := func() error { return SelectFlagged(s, x, fl, out, num) }
				bytes := 5 * int64(n)
				switch op {
				case "partition_flagged":
					f = func() error { return PartitionFlagged(s, x, fl, out, num) }
				case "unique":
					x = runsData(b, s, n, 8)
					f = func() error { return Unique(s, x, out, num) }
				case "if":
					// About half of the random int32s (below 2^23).
					f = func() error { return SelectIf(s, x, out, num, Less, 1<<22) }
					bytes = 4 * int64(n)
				}
				b.ReportAllocs()
				gputest.Benchmark(b, s, f, gputest.Bytes(bytes))
			})
		})
	}
}

func BenchmarkRunLengthEncode(b *testing.B) {
	defer func(old bool) { selectOnePassOn = old }(selectOnePassOn)
	selectOnePassOn = true
	_, s := newStream(b)
	withShapes(b, "int32", func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			x, out := runsData(b, s, n, 8), benchData[int32](b, s, n, 2)
			counts, num := benchData[int64](b, s, n, 3), benchData[int64](b, s, 1, 4)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return RunLengthEncode(s, x, out, counts, num) }, gputest.Bytes(4*int64(n)))
		})
	})
}

// BenchmarkScanByKey: int32 keys in runs of 64, int32 values.
func BenchmarkScanByKey(b *testing.B) {
	defer func(old bool) { singlePass = old }(singlePass)
	singlePass = true
	benchScanByKey(b)
}

func benchScanByKey(b *testing.B) {
	_, s := newStream(b)
	b.Run("inclusive_sum/int32-int32", func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			k, x, out := runsData(b, s, n, 64), benchData[int32](b, s, n, 1), benchData[int32](b, s, n, 2)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return InclusiveSumByKey(s, k, x, out) }, gputest.Bytes(12*int64(n)))
		})
	})
}

// BenchmarkScanByKey3Pass is BenchmarkScanByKey as reduce-then-scan
// (three launches after the heads), beside the look-back's one.
func BenchmarkScanByKey3Pass(b *testing.B) {
	defer func(old bool) { singlePass = old }(singlePass)
	singlePass = false
	benchScanByKey(b)
}

func benchSortKeys[K Key](b *testing.B) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		in, out := benchData[K](b, s, n, 1), benchData[K](b, s, n, 2)
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return SortKeys(s, in, out, SortOrder{}) }, gputest.Bytes(2*sizeOf[K]()*int64(n)))
	})
}

// BenchmarkSortKeys and BenchmarkSortPairs also run uint32 sorts in
// each of Onesweep's other shapes (sweepTuneKeys, sweepTunePairs), as
// uint32-BLOCKxITEMS: one GPU run compares them with the default's.
func BenchmarkSortKeys(b *testing.B) {
	withSortLSD(false, func() { benchSortKeysAll(b) })
}

func benchSortKeysAll(b *testing.B) {
	b.Run("uint32", benchSortKeys[uint32])
	benchShapes(b, sweepTuneKeys, "uint32", benchSortKeys[uint32])
	b.Run("float32", benchSortKeys[float32])
	b.Run("uint64", benchSortKeys[uint64])
}

// benchShapes runs f as name-SHAPE for each of shapes (not under sortLSD).
func benchShapes(b *testing.B, shapes map[string]sweepShape, name string, f func(b *testing.B)) {
	if sortLSD {
		return
	}
	for _, sh := range slices.Sorted(maps.Keys(shapes)) {
		b.Run(name+"-"+sh, func(b *testing.B) {
			defer func(old string) { sweepTune = old }(sweepTune)
			sweepTune = sh
			f(b)
		})
	}
}

func BenchmarkSortPairs(b *testing.B) {
	withSortLSD(false, func() { benchSortPairsAll(b) })
}

func benchSortPairsAll(b *testing.B) {
	_, s := newStream(b)
	pairs := func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			k, ko := benchData[uint32](b, s, n, 1), benchData[uint32](b, s, n, 2)
			v, vo := benchData[uint32](b, s, n, 3), benchData[uint32](b, s, n, 4)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return SortPairs(s, k, ko, v, vo, SortOrder{}) }, gputest.Bytes(16*int64(n)))
		})
	}
	b.Run("uint32-uint32", pairs)
	benchShapes(b, sweepTunePairs, "uint32-uint32", pairs)
}

// BenchmarkSortKeysLSD and BenchmarkSortPairsLSD are the sorts of
// BenchmarkSortKeys and BenchmarkSortPairs pass by pass (sortLSD), as
// the GPU sorted before Onesweep: the two side by side on a GPU.
func BenchmarkSortKeysLSD(b *testing.B) {
	withSortLSD(true, func() { benchSortKeysAll(b) })
}

func BenchmarkSortPairsLSD(b *testing.B) {
	withSortLSD(true, func() { benchSortPairsAll(b) })
}

func benchMergeSortKeys[K Key](b *testing.B) {
	_, s := newStream(b)
	benchEach(b, func(b *testing.B, n int) {
		in, out := benchData[K](b, s, n, 1), benchData[K](b, s, n, 2)
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return MergeSortKeys(s, in, out, Ascending) }, gputest.Bytes(2*sizeOf[K]()*int64(n)))
	})
}

func BenchmarkMergeSortKeys(b *testing.B) {
	b.Run("uint32", benchMergeSortKeys[uint32])
	b.Run("float32", benchMergeSortKeys[float32])
}

func BenchmarkMergeSortPairs(b *testing.B) {
	_, s := newStream(b)
	b.Run("uint32-uint32", func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			k, ko := benchData[uint32](b, s, n, 1), benchData[uint32](b, s, n, 2)
			v, vo := benchData[uint32](b, s, n, 3), benchData[uint32](b, s, n, 4)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return MergeSortPairs(s, k, ko, v, vo, Ascending) }, gputest.Bytes(16*int64(n)))
		})
	})
}

func BenchmarkHistogram(b *testing.B) {
	_, s := newStream(b)
	b.Run("uint8-256", func(b *testing.B) {
		benchEach(b, func(b *testing.B, n int) {
			x, hist := benchData[uint8](b, s, n, 1), benchData[uint32](b, s, 256, 2)
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return HistogramEven(s, x, hist, 0, 256) }, gputest.Bytes(int64(n)))
		})
	})
}

// The cpu agent's peers: slices.Sort of the same keys, and a reduction
// and scan hand-written as a parallel Go loop over GOMAXPROCS goroutines.

func BenchmarkSlicesSort(b *testing.B) {
	benchEach(b, func(b *testing.B, n int) {
		h := hostData[uint32](n, 1)
		w := make([]uint32, n)
		b.SetBytes(8 * int64(n))
		b.ReportAllocs()
		for b.Loop() {
			copy(w, h)
			slices.Sort(w)
		}
	})
}

func parallel(n int, f func(lo, hi, w int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range p {
		lo, hi := n*w/p, n*(w+1)/p
		wg.Go(func() { f(lo, hi, w) })
	}
	wg.Wait()
}

func BenchmarkParallelGoSum(b *testing.B) {
	benchEach(b, func(b *testing.B, n int) {
		h := hostData[float32](n, 1)
		part := make([]float32, runtime.GOMAXPROCS(0))
		b.SetBytes(4 * int64(n))
		b.ReportAllocs()
		var sink float32
		for b.Loop() {
			parallel(n, func(lo, hi, w int) {
				var s float32
				for _, v := range h[lo:hi] {
					s += v
				}
				part[w] = s
			})
			sink = 0
			for _, v := range part {
				sink += v
			}
		}
		_ = sink
	})
}

func BenchmarkParallelGoScan(b *testing.B) {
	benchEach(b, func(b *testing.B, n int) {
		h := hostData[int32](n, 1)
		out := make([]int32, n)
		part := make([]int32, runtime.GOMAXPROCS(0))
		b.SetBytes(8 * int64(n))
		b.ReportAllocs()
		for b.Loop() {
			parallel(n, func(lo, hi, w int) {
				var s int32
				for _, v := range h[lo:hi] {
					s += v
				}
				part[w] = s
			})
			var run int32
			for w, v := range part {
				part[w], run = run, run+v
			}
			parallel(n, func(lo, hi, w int) {
				s := part[w]
				for i := lo; i < hi; i++ {
					s += h[i]
					out[i] = s
				}
			})
		}
	})
}

// Small inputs: the host cost of one call, and its allocations.
func BenchmarkSmall(b *testing.B) {
	_, s := newStream(b)
	for _, n := range []int{1 << 10, 1 << 16} {
		x, out := benchData[float32](b, s, n, 1), benchData[float32](b, s, n, 2)
		b.Run(fmt.Sprintf("sum/2^%d", bitsLen(n)), func(b *testing.B) {
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return Sum(s, x, out) })
		})
		b.Run(fmt.Sprintf("add/2^%d", bitsLen(n)), func(b *testing.B) {
			b.ReportAllocs()
			gputest.Benchmark(b, s, func() error { return Transform2(s, x, x, out, Add) })
		})
	}
	_ = require.NoError
}

func bitsLen(n int) int {
	l := 0
	for n > 1 {
		n >>= 1
		l++
	}
	return l
}
