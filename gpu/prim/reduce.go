package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Op is a reduction's operation.
type Op int32

// The reductions.
const (
	OpSum Op = Op(opSum) // a + b; 0 for no elements
	OpMin Op = Op(opMin) // the smaller; T's highest value (+Inf) for none
	OpMax Op = Op(opMax) // the larger; T's lowest value (-Inf) for none
)

func (o Op) String() string {
	switch o {
	case OpSum:
		return "sum"
	case OpMin:
		return "min"
	case OpMax:
		return "max"
	}
	return "Op(?)"
}

// reducePerSM is the blocks per multiprocessor of a GPU reduction's
// one-wave grid: the kernels' launch bounds (1024 work-items) leave each
// work-item at most 64 registers, so four blocks of blockSize fit on
// every target.
const reducePerSM = 4

// oneLaunchN is the most elements a GPU reduction takes in one launch,
// and oneBlock the block of that launch and of the second pass; tests
// lower them to reach the two passes on the cpu agent's small inputs
// at a small cost (its warps run as coroutines).
var (
	oneLaunchN = smallN
	oneBlock   = smallBlock
)

// reduceGrid is a GPU reduction's first pass over n elements: one wave
// of blocks, each taking at least one turn of four 16-byte loads per
// work-item.
func reduceGrid(g shape, n int) int { return min(ceilDiv(n, blockSize*16), g.wave(reducePerSM)) }

// Sum queues out[0] = the sum of in's elements on s (cub::DeviceReduce::Sum).
func Sum[T Number](s *stream.Stream, in, out buffer.Array[T]) error { return Reduce(s, in, out, OpSum) }

// Min queues out[0] = the least of in's elements (cub::DeviceReduce::Min).
func Min[T Number](s *stream.Stream, in, out buffer.Array[T]) error { return Reduce(s, in, out, OpMin) }

// Max queues out[0] = the greatest of in's elements (cub::DeviceReduce::Max).
func Max[T Number](s *stream.Stream, in, out buffer.Array[T]) error { return Reduce(s, in, out, OpMax) }

// Reduce queues out[0] = in's elements combined by op, in an order of
// its own (float sums differ from a sequential sum by rounding). An
// input of up to 2^16 elements is one launch; a larger one two, through
// temporary storage from the stream's pool: on a GPU, one wave of blocks
// whose work-items each keep four 16-byte loads in flight (where in
// starts on a 16-byte boundary), then one block over their results.
func Reduce[T Number](s *stream.Stream, in, out buffer.Array[T], op Op) (err error) {
	const name = "prim reduce"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, 1); err != nil {
		return err
	}
	if op < OpSum || op > OpMax {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown operation %d", int32(op))
	}
	l := numFor[T]()
	var id T
	switch lo, hi := limits[T](); op {
	case OpMin:
		id = hi
	case OpMax:
		id = lo
	}
	n := in.Len()
	g := shapeOf(s)
	var grid, block, span int
	vec := false
	if g.cpu {
		grid, span = g.split(n, 1<<15)
		block = 1
	} else {
		vec = aligned16(in)
		if n <= oneLaunchN {
			return l.reduce(s, gpu.D1(1), gpu.D1(uint32(oneBlock)), 0, in, out, id, int32(op), 0, vec)
		}
		grid, block = reduceGrid(g, n), blockSize
	}
	if grid == 1 {
		return l.reduce(s, gpu.D1(1), gpu.D1(uint32(block)), 0, in, out, id, int32(op), span, vec)
	}
	tmp, err := scratch[T](s, grid)
	if err != nil {
		return err
	}
	defer free(s, tmp, &err)
	if err = l.reduce(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, tmp, id, int32(op), span, vec); err != nil {
		return err
	}
	if g.cpu {
		err = l.reduce(s, gpu.D1(1), gpu.D1(1), 0, tmp, out, id, int32(op), grid, false)
	} else {
		err = l.reduce(s, gpu.D1(1), gpu.D1(uint32(oneBlock)), 0, tmp, out, id, int32(op), 0, false)
	}
	return err
}

// ArgMin queues out[0] = the least of in's elements and idx[0] = its
// index, the first among equal ones (cub::DeviceReduce::ArgMin); idx[0]
// is -1 for no elements. NaNs are never the least unless all are.
func ArgMin[T Number](s *stream.Stream, in, out buffer.Array[T], idx buffer.Array[int64]) error {
	return argReduce(s, in, out, idx, false)
}

// ArgMax is ArgMin for the greatest element.
func ArgMax[T Number](s *stream.Stream, in, out buffer.Array[T], idx buffer.Array[int64]) error {
	return argReduce(s, in, out, idx, true)
}

func argReduce[T Number](s *stream.Stream, in, out buffer.Array[T], idx buffer.Array[int64], isMax bool) (err error) {
	const name = "prim argmin/argmax"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, 1); err != nil {
		return err
	}
	if err := checkOut(name, "idx", idx, 1); err != nil {
		return err
	}
	l := numFor[T]()
	n := in.Len()
	g := shapeOf(s)
	var grid, block, span int
	vec := false
	if g.cpu {
		grid, span = g.split(n, 1<<15)
		block = 1
	} else {
		vec = aligned16(in)
		if n <= oneLaunchN {
			return l.argReduce(s, gpu.D1(1), gpu.D1(uint32(oneBlock)), 0, in, idx, out, idx, false, isMax, 0, vec)
		}
		grid, block = reduceGrid(g, n), blockSize
	}
	if grid == 1 {
		return l.argReduce(s, gpu.D1(1), gpu.D1(uint32(block)), 0, in, idx, out, idx, false, isMax, span, vec)
	}
	tv, err := scratch[T](s, grid)
	if err != nil {
		return err
	}
	defer free(s, tv, &err)
	ti, err := scratch[int64](s, grid)
	if err != nil {
		return err
	}
	defer free(s, ti, &err)
	if err = l.argReduce(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, idx, tv, ti, false, isMax, span, vec); err != nil {
		return err
	}
	if g.cpu {
		err = l.argReduce(s, gpu.D1(1), gpu.D1(1), 0, tv, ti, out, idx, true, isMax, grid, false)
	} else {
		err = l.argReduce(s, gpu.D1(1), gpu.D1(uint32(oneBlock)), 0, tv, ti, out, idx, true, isMax, 0, false)
	}
	return err
}
