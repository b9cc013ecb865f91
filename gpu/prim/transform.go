package prim

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// UnaryOp is an element-wise operation of one operand and a scalar.
type UnaryOp int32

// The unary operations.
const (
	Neg       UnaryOp = UnaryOp(opNeg)       // -x
	Abs       UnaryOp = UnaryOp(opAbs)       // |x|
	Square    UnaryOp = UnaryOp(opSquare)    // x*x
	Scale     UnaryOp = UnaryOp(opScale)     // a*x
	AddScalar UnaryOp = UnaryOp(opAddScalar) // x+a
)

// BinaryOp is an element-wise operation of two operands.
type BinaryOp int32

// The binary operations.
const (
	Add     BinaryOp = BinaryOp(opAdd)     // x+y
	Sub     BinaryOp = BinaryOp(opSub)     // x-y
	Mul     BinaryOp = BinaryOp(opMul)     // x*y
	Div     BinaryOp = BinaryOp(opDiv)     // x/y (an integer division by zero is a kernel fault)
	Minimum BinaryOp = BinaryOp(opMinimum) // min(x, y)
	Maximum BinaryOp = BinaryOp(opMaximum) // max(x, y)
)

// transformShape is an element-wise launch over n elements.
func transformShape(g shape, n int) (grid, block, span int) {
	if g.cpu {
		grid, span = g.split(n, 1<<15)
		return grid, 1, span
	}
	return max(1, min(ceilDiv(n, blockSize), 16*g.sms)), blockSize, 0
}

// maxTransformGrid bounds Transform's grid; its blocks stride over what
// is left.
const maxTransformGrid = 1 << 16

// transformGrid is Transform's launch over n elements of T: on a GPU,
// one turn of four loads and stores per work-item for each block (four
// vectors where vec: 16 elements of 4 bytes, 8 of 8 bytes), as many
// blocks as that takes, as cub::DeviceTransform keeps bytes in flight;
// on the cpu agent, contiguous spans.
func transformGrid[T any](g shape, n int, vec bool) (grid, block, span int) {
	if g.cpu {
		return transformShape(g, n)
	}
	per := 4
	if vec {
		per *= 16 / int(unsafe.Sizeof(*new(T)))
	}
	return max(1, min(ceilDiv(n, blockSize*per), maxTransformGrid)), blockSize, 0
}

// Transform queues out[i] = op(in[i]) for i < out.Len(), a the operation's
// scalar (cub::DeviceTransform::Transform). out may be in.
func Transform[T Number](s *stream.Stream, in, out buffer.Array[T], op UnaryOp, a T) error {
	const name = "prim transform"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, 0); err != nil {
		return err
	}
	if err := checkOut(name, "in", in, out.Len()); err != nil {
		return err
	}
	if op < Neg || op > AddScalar {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown operation %d", int32(op))
	}
	n := out.Len()
	if n == 0 {
		return nil
	}
	g := shapeOf(s)
	vec := !g.cpu && aligned16(in) && aligned16(out)
	grid, block, span := transformGrid[T](g, n, vec)
	return numFor[T]().unary(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, out, int32(op), a, span, vec)
}

// Transform2 queues out[i] = x[i] op y[i] for i < out.Len(). out may be x
// or y.
func Transform2[T Number](s *stream.Stream, x, y, out buffer.Array[T], op BinaryOp) error {
	const name = "prim transform2"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, 0); err != nil {
		return err
	}
	if err := checkOut(name, "x", x, out.Len()); err != nil {
		return err
	}
	if err := checkOut(name, "y", y, out.Len()); err != nil {
		return err
	}
	if op < Add || op > Maximum {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "unknown operation %d", int32(op))
	}
	n := out.Len()
	if n == 0 {
		return nil
	}
	g := shapeOf(s)
	vec := !g.cpu && aligned16(x) && aligned16(y) && aligned16(out)
	grid, block, span := transformGrid[T](g, n, vec)
	return numFor[T]().binary(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, x, y, out, int32(op), span, vec)
}
