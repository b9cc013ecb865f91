package prim

import (
	"math"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Ordering is a merge sort's order: which of two keys goes first. The
// sort is stable whatever the order: keys that go before each other in
// neither direction keep their input order.
type Ordering int32

const (
	// Ascending puts a before b where a < b (Go's <). Floats with NaNs
	// have no order by <: a NaN is "equal" to every key, and where it
	// lands is unspecified. Sort floats that may hold NaNs with
	// TotalAscending.
	Ascending Ordering = Ordering(ordAscending)
	// Descending puts a before b where a > b.
	Descending Ordering = Ordering(ordDescending)
	// TotalAscending is the radix sort's order (SortOrder): for floats
	// -NaN < -Inf < ... < -0 = +0 < ... < +Inf < +NaN, a NaN placed by
	// its sign bit, -0 and +0 equal; for integers the same as Ascending.
	TotalAscending Ordering = Ordering(ordTotalAscending)
	// TotalDescending is TotalAscending reversed (equal keys still in
	// input order).
	TotalDescending Ordering = Ordering(ordTotalDescending)
)

// MergeSortKeys queues a stable merge sort of keysIn into keysOut in the
// order ord (cub::DeviceMergeSort::StableSortKeys). keysOut may be
// keysIn. A GPU block sorts tiles of 1024 keys in shared memory, then
// passes merge pairs of sorted runs, each block's part found by a
// merge-path search; the temporary storage (a copy of the keys) comes
// from the stream's pool.
func MergeSortKeys[K Key](s *stream.Stream, keysIn, keysOut buffer.Array[K], ord Ordering) error {
	return mergeSort[K, uint32](s, keysIn, keysOut, nil, nil, mergeKernels[K]{ord: ord}, false)
}

// MergeSortPairs is MergeSortKeys moving values with their keys
// (cub::DeviceMergeSort::StableSortPairs): valsOut[i] is the value of
// the key that lands in keysOut[i]. valsOut may be valsIn. The sort
// moves the keys' input indices and gathers the values by them at the
// end, so one sort kernel serves every value type.
func MergeSortPairs[K Key, V Value](s *stream.Stream, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], ord Ordering) error {
	return mergeSort(s, keysIn, keysOut, valsIn, valsOut, mergeKernels[K]{ord: ord}, true)
}

// mergeKernels is a merge sort's two kernels: the package's own for an
// Ordering (block nil), or an instance for a comparator of the caller's
// (MergeSortWith).
type mergeKernels[K Key] struct {
	ord   Ordering
	block MergeBlockLaunch[K]
	pass  MergePassLaunch[K]
}

func (m mergeKernels[K]) sortBlock(s *stream.Stream, grid, block gpu.Dim3, shared int, in, out buffer.Array[K], outI buffer.Array[uint32], pairs bool, tile int) error {
	if m.block != nil {
		return m.block(s, grid, block, shared, in, out, outI, pairs, tile)
	}
	return keyFor[K]().mergeBlock(s, grid, block, shared, in, out, outI, pairs, int32(m.ord), tile)
}

func (m mergeKernels[K]) mergePass(s *stream.Stream, grid, block gpu.Dim3, shared int, src, dst buffer.Array[K], srcI, dstI buffer.Array[uint32], pairs bool, count, w, tile int) error {
	if m.pass != nil {
		return m.pass(s, grid, block, shared, src, dst, srcI, dstI, pairs, count, w, tile)
	}
	return keyFor[K]().mergePass(s, grid, block, shared, src, dst, srcI, dstI, pairs, int32(m.ord), count, w, tile)
}

func mergeSort[K Key, V Value](s *stream.Stream, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], m mergeKernels[K], pairs bool) (err error) {
	name := "prim merge sort"
	if m.block != nil {
		name = "prim merge sort with"
	}
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "keysIn", keysIn); err != nil {
		return err
	}
	n := keysIn.Len()
	if err := checkOut(name, "keysOut", keysOut, n); err != nil {
		return err
	}
	if pairs {
		if err := checkOut(name, "valsIn", valsIn, n); err != nil {
			return err
		}
		if err := checkOut(name, "valsOut", valsOut, n); err != nil {
			return err
		}
	}
	if ord := m.ord; ord < Ascending || ord > TotalDescending {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown ordering %d", int32(ord))
	}
	if n > math.MaxUint32 {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "%d keys, at most 2^32-1", n)
	}
	if n == 0 {
		return nil
	}
	g := shapeOf(s)
	tile, block, shared := mergeTile, blockSize, 2*mergeTile*int(unsafe.Sizeof(*new(K)))
	if g.cpu {
		_, span := g.split(n, 1<<14)
		tile, block, shared = ceilDiv(span, mergeRun)*mergeRun, 1, 0
	}
	first := tile
	if g.cpu {
		first = mergeRun
	}
	passes := 0
	for w := first; w < n; w *= 2 {
		passes++
	}
	var tmpK *buffer.Buffer[K]
	if passes > 0 {
		if tmpK, err = scratch[K](s, n); err != nil {
			return err
		}
		defer free(s, tmpK, &err)
	}
	// Indices: the sorted keys' input places (pairs), else one unused
	// element that the kernels take as an argument and never touch.
	ni := 1
	if pairs {
		ni = n
	}
	idxA, err := scratch[uint32](s, ni)
	if err != nil {
		return err
	}
	defer free(s, idxA, &err)
	idxB := idxA
	if pairs && passes > 0 {
		if idxB, err = scratch[uint32](s, n); err != nil {
			return err
		}
		defer free(s, idxB, &err)
	}
	// Stage j (0: the block sort, then the passes) writes keysOut and
	// idxA where passes-j is even, so the last lands there.
	dstK := func(j int) (buffer.Array[K], buffer.Array[uint32]) {
		if (passes-j)%2 == 0 {
			return keysOut, idxA
		}
		return tmpK, idxB
	}
	blocks := ceilDiv(n, tile)
	grid, blk := gpu.D1(uint32(blocks)), gpu.D1(uint32(block))
	k0, i0 := dstK(0)
	if err = m.sortBlock(s, grid, blk, shared, keysIn, k0, i0, pairs, tile); err != nil {
		return err
	}
	w := first
	for j := 1; j <= passes; j++ {
		srcK, srcI := dstK(j - 1)
		dk, di := dstK(j)
		if err = m.mergePass(s, grid, blk, shared, srcK, dk, srcI, di, pairs, n, w, tile); err != nil {
			return err
		}
		w *= 2
	}
	if !pairs {
		return nil
	}
	src := valsIn
	if same(valsIn, valsOut) {
		var tmpV *buffer.Buffer[V]
		if tmpV, err = scratch[V](s, n); err != nil {
			return err
		}
		defer free(s, tmpV, &err)
		if err = s.Copy(tmpV, 0, valsIn, 0, n); err != nil {
			return err
		}
		src = tmpV
	}
	gg, gb, span := transformShape(g, n)
	return gatherFor[V]()(s, gpu.D1(uint32(gg)), gpu.D1(uint32(gb)), 0, src, idxA, valsOut, n, span)
}
