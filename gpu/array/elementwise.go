package array

import (
	"errors"
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/prim"
)

// binary is a f b; operands of one shape go through gpu/prim's
// Transform2, others broadcast (arith).
func binary[T Number](op string, a, b *Array[T], f prim.BinaryOp) (*Array[T], error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if err := b.check(op); err != nil {
		return nil, err
	}
	if !slices.Equal(a.shape, b.shape) {
		return arithBroadcast(op, a, b, f)
	}
	if err := sameShapeOf(op, a, b); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if err := prim.Transform2(a.s, a.data, b.data, out.data, f); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// arithOps are arith's operations for prim's.
var arithOps = map[prim.BinaryOp]int32{prim.Add: arAdd, prim.Sub: arSub, prim.Mul: arMul, prim.Div: arDiv, prim.Minimum: arMinimum, prim.Maximum: arMaximum}

// arithBroadcast is a f b of operands of different shapes that broadcast
// as NumPy's do, read in place (no copy), into a new array of the
// broadcast shape on a's stream.
func arithBroadcast[T Number](op string, a, b *Array[T], f prim.BinaryOp) (*Array[T], error) {
	ins := [2]operand{{shape: a.shape}, {shape: b.shape}}
	shape, fresh, err := shapeOf(op, ins[:], []*gpu.Device{a.s.Device(), b.s.Device()})
	if err != nil {
		return nil, err
	}
	out, err := mapResult[T](op, a.s, shape, fresh)
	if err != nil {
		return nil, err
	}
	if out.size == 0 {
		return out, nil
	}
	grid, block, span := launchShape(a.s, out.size)
	launch := launchArith[T]
	err = launch(a.s, grid, block, 0, a.data, ins[0].d, ins[0].m, b.data, ins[1].d, ins[1].m, out.data, arithOps[f], span)
	return mapped(out, err)
}

func unary[T Number](op string, a *Array[T], f prim.UnaryOp, x T) (*Array[T], error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if err := prim.Transform(a.s, a.data, out.data, f, x); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// withScalar is a binary operation of a and a full array of x, a
// temporary from the stream's pool.
func withScalar[T Number](op string, a *Array[T], x T, f prim.BinaryOp) (out *Array[T], err error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	xs, err := Full(a.s, x, a.shape...)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, xs.Free()) }()
	return binary(op, a, xs, f)
}

// Add is a + b element by element (cupy.add). Shapes broadcast as
// NumPy's do (aligned at the last axis, a dimension of 1 or a missing one
// stretching), reading the operands in place; shapes that do not are a
// *ShapeError naming both, as is the rest of Map's broadcasting limit
// (an operand stretched along two separate groups of axes). So do Sub,
// Mul, Div, Minimum and Maximum.
func Add[T Number](a, b *Array[T]) (*Array[T], error) { return binary("array add", a, b, prim.Add) }

// Sub is a - b element by element (cupy.subtract).
func Sub[T Number](a, b *Array[T]) (*Array[T], error) { return binary("array sub", a, b, prim.Sub) }

// Mul is a * b element by element (cupy.multiply).
func Mul[T Number](a, b *Array[T]) (*Array[T], error) { return binary("array mul", a, b, prim.Mul) }

// Div is a / b element by element (cupy.divide for floats,
// cupy.floor_divide's C truncation for integers). An integer element of
// b that is 0 faults the kernel, and the stream fails.
func Div[T Number](a, b *Array[T]) (*Array[T], error) { return binary("array div", a, b, prim.Div) }

// Minimum is the smaller of a and b element by element (cupy.minimum).
func Minimum[T Number](a, b *Array[T]) (*Array[T], error) {
	return binary("array minimum", a, b, prim.Minimum)
}

// Maximum is the larger of a and b element by element (cupy.maximum).
func Maximum[T Number](a, b *Array[T]) (*Array[T], error) {
	return binary("array maximum", a, b, prim.Maximum)
}

// Neg is -a (cupy.negative); unsigned integers wrap.
func Neg[T Number](a *Array[T]) (*Array[T], error) { return unary("array neg", a, prim.Neg, 0) }

// Abs is |a| (cupy.abs); the identity for unsigned integers.
func Abs[T Number](a *Array[T]) (*Array[T], error) { return unary("array abs", a, prim.Abs, 0) }

// Square is a*a (cupy.square).
func Square[T Number](a *Array[T]) (*Array[T], error) {
	return unary("array square", a, prim.Square, 0)
}

// Scale is x*a (a * x in CuPy).
func Scale[T Number](a *Array[T], x T) (*Array[T], error) {
	return unary("array scale", a, prim.Scale, x)
}

// AddScalar is a + x.
func AddScalar[T Number](a *Array[T], x T) (*Array[T], error) {
	return unary("array add scalar", a, prim.AddScalar, x)
}

// SubScalar is a - x (unsigned integers wrap, as Go's do).
func SubScalar[T Number](a *Array[T], x T) (*Array[T], error) {
	return unary("array sub scalar", a, prim.AddScalar, -x)
}

// DivScalar is a / x, exactly as Div of a full array of x rounds; an
// integer x of 0 is an error and nothing is queued.
func DivScalar[T Number](a *Array[T], x T) (*Array[T], error) {
	const op = "array div scalar"
	if x == 0 && isInteger[T]() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "integer division by zero")
	}
	return withScalar(op, a, x, prim.Div)
}

// MinimumScalar is the smaller of each element and x (cupy.minimum(a, x)).
func MinimumScalar[T Number](a *Array[T], x T) (*Array[T], error) {
	return withScalar("array minimum scalar", a, x, prim.Minimum)
}

// MaximumScalar is the larger of each element and x (cupy.maximum(a, x)).
func MaximumScalar[T Number](a *Array[T], x T) (*Array[T], error) {
	return withScalar("array maximum scalar", a, x, prim.Maximum)
}

// isInteger tells integer element types from floats: 1/2 is 0 only for
// integers.
func isInteger[T Number]() bool {
	one := T(1)
	return one/2 == 0
}
