package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// SegmentedSum queues out[g] = the sum of in[offsets[g]:offsets[g+1]]
// for each of the offsets.Len()-1 segments
// (cub::DeviceSegmentedReduce::Sum with begin offsets offsets and end
// offsets offsets+1).
func SegmentedSum[T Number](s *stream.Stream, in, out buffer.Array[T], offsets buffer.Array[int64]) error {
	return SegmentedReduce(s, in, out, offsets, OpSum)
}

// SegmentedMin is SegmentedSum for the least element
// (cub::DeviceSegmentedReduce::Min); T's highest value for an empty
// segment.
func SegmentedMin[T Number](s *stream.Stream, in, out buffer.Array[T], offsets buffer.Array[int64]) error {
	return SegmentedReduce(s, in, out, offsets, OpMin)
}

// SegmentedMax is SegmentedSum for the greatest element
// (cub::DeviceSegmentedReduce::Max); T's lowest value for an empty
// segment.
func SegmentedMax[T Number](s *stream.Stream, in, out buffer.Array[T], offsets buffer.Array[int64]) error {
	return SegmentedReduce(s, in, out, offsets, OpMax)
}

// SegmentedReduce queues out[g] = in[offsets[g]:offsets[g+1]] combined
// by op, for g < offsets.Len()-1 (cub::DeviceSegmentedReduce::Reduce).
// Segments may be empty (op's identity, as Reduce gives), overlap or
// leave elements out. The offsets are device data, so they are not
// checked here: each is clamped to [0, in.Len()] and an end before its
// begin is an empty segment, so bad offsets give wrong sums, never reads
// outside in. One launch: a block per segment on a GPU, spans of
// segments per worker on the cpu agent.
func SegmentedReduce[T Number](s *stream.Stream, in, out buffer.Array[T], offsets buffer.Array[int64], op Op) error {
	const name = "prim segmented reduce"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	if err := checkOut(name, "offsets", offsets, 1); err != nil {
		return err
	}
	ns := offsets.Len() - 1
	if err := checkOut(name, "out", out, ns); err != nil {
		return err
	}
	if op < OpSum || op > OpMax {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown operation %d", int32(op))
	}
	if ns == 0 {
		return nil
	}
	var id T
	switch lo, hi := limits[T](); op {
	case OpMin:
		id = hi
	case OpMax:
		id = lo
	}
	g := shapeOf(s)
	if g.cpu {
		per := max(1, (1<<15)/max(1, in.Len()/ns)) // segments of about 2^15 elements a span
		grid, span := g.split(ns, per)
		return numFor[T]().segReduce(s, gpu.D1(uint32(grid)), gpu.D1(1), 0, in, offsets, out, id, int32(op), span)
	}
	grid := min(ns, 64*g.sms)
	return numFor[T]().segReduce(s, gpu.D1(uint32(grid)), gpu.D1(blockSize), 0, in, offsets, out, id, int32(op), 0)
}
