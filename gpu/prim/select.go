package prim

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// SelectOp is a predicate of SelectIf and PartitionIf: an element
// compared with a scalar.
type SelectOp int32

// The predicates, x the element and a the scalar.
const (
	Less         SelectOp = SelectOp(predLess)         // x < a
	LessEqual    SelectOp = SelectOp(predLessEqual)    // x <= a
	Greater      SelectOp = SelectOp(predGreater)      // x > a
	GreaterEqual SelectOp = SelectOp(predGreaterEqual) // x >= a
	Equal        SelectOp = SelectOp(predEqual)        // x == a
	NotEqual     SelectOp = SelectOp(predNotEqual)     // x != a
)

// selectTile is a GPU selection's elements per block.
const selectTile = blockSize * 16

// SelectFlagged queues the elements of in whose flag is not 0, in their
// order, into out, and their number into num[0]
// (cub::DeviceSelect::Flagged). out must hold in.Len() elements (the
// most that can be selected); flags at least as many.
func SelectFlagged[T Number](s *stream.Stream, in buffer.Array[T], flags buffer.Array[uint8], out buffer.Array[T], num buffer.Array[int64]) error {
	return selection(s, "prim select flagged", in, flags, out, nil, num, predFlags, 0, false)
}

// SelectIf queues the elements x of in for which x op a holds, in their
// order, into out, and their number into num[0] (cub::DeviceSelect::If
// with a comparison). NaNs compare as Go's operators say (false but for
// NotEqual).
func SelectIf[T Number](s *stream.Stream, in, out buffer.Array[T], num buffer.Array[int64], op SelectOp, a T) error {
	const name = "prim select if"
	if op < Less || op > NotEqual {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown predicate %d", int32(op))
	}
	return selection(s, name, in, nil, out, nil, num, int32(op), a, false)
}

// Unique queues the first element of each run of equal elements of in,
// in order, into out, and their number into num[0]
// (cub::DeviceSelect::Unique); on sorted input, the distinct values.
func Unique[T Number](s *stream.Stream, in, out buffer.Array[T], num buffer.Array[int64]) error {
	return selection(s, "prim unique", in, nil, out, nil, num, predUnique, 0, false)
}

// PartitionFlagged queues the elements of in whose flag is not 0 into
// the front of out, and the others after them, both in their input
// order, and the number of the first into num[0]
// (cub::DevicePartition::Flagged, which writes the others in reverse
// order: here both parts are stable). out must hold in.Len() elements
// and must not be in.
func PartitionFlagged[T Number](s *stream.Stream, in buffer.Array[T], flags buffer.Array[uint8], out buffer.Array[T], num buffer.Array[int64]) error {
	return selection(s, "prim partition flagged", in, flags, out, nil, num, predFlags, 0, true)
}

// PartitionIf is PartitionFlagged with SelectIf's predicate
// (cub::DevicePartition::If).
func PartitionIf[T Number](s *stream.Stream, in, out buffer.Array[T], num buffer.Array[int64], op SelectOp, a T) error {
	const name = "prim partition if"
	if op < Less || op > NotEqual {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown predicate %d", int32(op))
	}
	return selection(s, name, in, nil, out, nil, num, int32(op), a, true)
}

// RunLengthEncode queues, for each run of equal consecutive elements of
// in, its value into unique and its length into counts, and the number
// of runs into numRuns[0] (cub::DeviceRunLengthEncode::Encode). unique
// and counts must hold in.Len() elements. Floats compare with ==: -0 and
// +0 are one run, each NaN a run of its own.
func RunLengthEncode[T Number](s *stream.Stream, in, unique buffer.Array[T], counts, numRuns buffer.Array[int64]) (err error) {
	const name = "prim run-length encode"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	n := in.Len()
	if err := checkOut(name, "counts", counts, n); err != nil {
		return err
	}
	if err := checkOut(name, "numRuns", numRuns, 1); err != nil {
		return err
	}
	if err := checkOut(name, "unique", unique, n); err != nil {
		return err
	}
	if selectOnePass(shapeOf(s), n, int(unsafe.Sizeof(*new(T)))) {
		return sweepSelect(s, in, nil, unique, counts, numRuns, predUnique, 0, false)
	}
	heads, err := scratch[int64](s, n)
	if err != nil {
		return err
	}
	defer free(s, heads, &err)
	if err = selection(s, name, in, nil, unique, heads, numRuns, predUnique, 0, false); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	grid, block, span := transformShape(shapeOf(s), n)
	return LaunchRunLengths(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, heads, numRuns, counts, n, span)
}

// selection queues a selection (a partition). On a GPU more than a tile
// is one pass (sweepSelect); on the cpu agent, and for one tile, it is
// the count per tile, its scan, and the scatter (one launch for one
// tile). idx, when not nil, gets the selected elements' indices.
func selection[T Number](s *stream.Stream, name string, in buffer.Array[T], flags buffer.Array[uint8], out buffer.Array[T], idx, num buffer.Array[int64], pred int32, a T, partition bool) (err error) {
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	n := in.Len()
	if err := checkOut(name, "out", out, n); err != nil {
		return err
	}
	if err := checkOut(name, "num", num, 1); err != nil {
		return err
	}
	if pred == predFlags {
		if err := checkOut(name, "flags", flags, n); err != nil {
			return err
		}
	}
	if partition && sameMem(in, out) {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "out is in: a partition does not work in place")
	}
	if idx == nil && selectOnePass(shapeOf(s), n, int(unsafe.Sizeof(*new(T)))) {
		return sweepSelect(s, in, flags, out, nil, num, pred, a, partition)
	}
	if flags == nil {
		// The kernels take a flags buffer whether they read it or not.
		f, err := scratch[uint8](s, 1)
		if err != nil {
			return err
		}
		defer free(s, f, &err)
		flags = f
	}
	withIdx := idx != nil
	if !withIdx {
		idx = num // never written
	}
	l := numFor[T]()
	g := shapeOf(s)
	grid, block, tile := 1, blockSize, selectTile
	if g.cpu {
		grid, tile = g.split(n, 1<<15)
		block = 1
	} else {
		grid = max(1, ceilDiv(n, tile))
	}
	if grid == 1 {
		return l.selScatter(s, gpu.D1(1), gpu.D1(uint32(block)), 0, in, flags, out, idx, true, withIdx, pred, a, num, num, num, true, partition, max(tile, n))
	}
	counts, err := scratch[int64](s, grid)
	if err != nil {
		return err
	}
	defer free(s, counts, &err)
	offs, err := scratch[int64](s, grid)
	if err != nil {
		return err
	}
	defer free(s, offs, &err)
	if err = l.selCount(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, flags, counts, pred, a, tile); err != nil {
		return err
	}
	if err = scan[int64](s, counts, offs, true); err != nil {
		return err
	}
	return l.selScatter(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, flags, out, idx, true, withIdx, pred, a, offs, counts, num, false, partition, tile)
}

// sameMem says whether a and b start at one address (a buffer and itself
// or a view of its start).
func sameMem[T any](a, b buffer.Array[T]) bool {
	return a.Len() > 0 && b.Len() > 0 && a.Ptr() == b.Ptr()
}
