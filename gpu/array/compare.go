package array

import (
	"errors"
	"slices"

	"github.com/hipgo/hipgo/gpu"
)

// sameShapeOf checks that a and b can be operands of one element-wise
// operation (of one element type, or a mask and values): both good, one
// shape, one device.
func sameShapeOf[A, B Element](op string, a *Array[A], b *Array[B]) error {
	if err := a.check(op); err != nil {
		return err
	}
	if err := b.check(op); err != nil {
		return err
	}
	if !slices.Equal(a.shape, b.shape) {
		return &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape}, Reason: "operands of different shapes"}
	}
	if a.s.Device() != b.s.Device() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "operands on %s and %s", a.s.Device(), b.s.Device())
	}
	return nil
}

// comparison is a mask of x op y, y an array or, where scalar, c.
func comparison[T Element](op string, x, y *Array[T], c T, scalar bool, cmp int32) (*Array[uint8], error) {
	if err := x.check(op); err != nil {
		return nil, err
	}
	// Operands of one shape (or a scalar) read at the result's index;
	// others broadcast as Add's do.
	ins := [2]operand{{shape: x.shape}, {shape: x.shape}}
	shape, fresh := x.shape, false
	yd := x.data // read by no work-item where the operand is a scalar
	if !scalar {
		if err := y.check(op); err != nil {
			return nil, err
		}
		yd = y.data
		ins[1].shape = y.shape
		var err error
		if shape, fresh, err = shapeOf(op, ins[:], []*gpu.Device{x.s.Device(), y.s.Device()}); err != nil {
			return nil, err
		}
	}
	out, err := mapResult[uint8](op, x.s, shape, fresh)
	if err != nil {
		return nil, err
	}
	if out.size == 0 {
		return out, nil
	}
	grid, block, span := launchShape(x.s, out.size)
	// A value, not a call of the generic launcher: hipgo-gen takes the
	// instances from the kernel's directive, and would take T for one.
	launch := launchCompare[T]
	if err := launch(x.s, grid, block, 0, x.data, ins[0].d, ins[0].m, yd, ins[1].d, ins[1].m, c, scalar, out.data, cmp, span); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// Equal is a mask of a == b element by element: 1 where they are equal,
// else 0 (cupy.equal, a == b; CuPy's bool array is a uint8 array here).
// Shapes broadcast as Add's do. NaN equals nothing, itself included.
func Equal[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array equal", a, b, z, false, cmpEqual)
}

// NotEqual is a mask of a != b (cupy.not_equal); 1 where either is NaN.
func NotEqual[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array not equal", a, b, z, false, cmpNotEqual)
}

// Less is a mask of a < b (cupy.less).
func Less[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array less", a, b, z, false, cmpLess)
}

// LessEqual is a mask of a <= b (cupy.less_equal).
func LessEqual[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array less equal", a, b, z, false, cmpLessEqual)
}

// Greater is a mask of a > b (cupy.greater).
func Greater[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array greater", a, b, z, false, cmpGreater)
}

// GreaterEqual is a mask of a >= b (cupy.greater_equal).
func GreaterEqual[T Element](a, b *Array[T]) (*Array[uint8], error) {
	var z T
	return comparison("array greater equal", a, b, z, false, cmpGreaterEqual)
}

// EqualScalar is a mask of a == x (a == x in CuPy).
func EqualScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array equal scalar", a, nil, x, true, cmpEqual)
}

// NotEqualScalar is a mask of a != x.
func NotEqualScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array not equal scalar", a, nil, x, true, cmpNotEqual)
}

// LessScalar is a mask of a < x.
func LessScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array less scalar", a, nil, x, true, cmpLess)
}

// LessEqualScalar is a mask of a <= x.
func LessEqualScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array less equal scalar", a, nil, x, true, cmpLessEqual)
}

// GreaterScalar is a mask of a > x.
func GreaterScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array greater scalar", a, nil, x, true, cmpGreater)
}

// GreaterEqualScalar is a mask of a >= x.
func GreaterEqualScalar[T Element](a *Array[T], x T) (*Array[uint8], error) {
	return comparison("array greater equal scalar", a, nil, x, true, cmpGreaterEqual)
}

// choose is mask ? x : y, y an array or, where scalar, c.
func choose[T Element](op string, mask *Array[uint8], x, y *Array[T], c T, scalar bool) (*Array[T], error) {
	if err := sameShapeOf(op, mask, x); err != nil {
		return nil, err
	}
	if !scalar {
		if err := sameShapeOf(op, x, y); err != nil {
			return nil, err
		}
	}
	out, err := alloc[T](op, x.s, x.shape)
	if err != nil {
		return nil, err
	}
	if x.size == 0 {
		return out, nil
	}
	yd := x.data // read by no work-item where the operand is a scalar
	if !scalar {
		yd = y.data
	}
	grid, block, span := launchShape(x.s, x.size)
	// A value, not a call of the generic launcher: hipgo-gen takes the
	// instances from the kernel's directive, and would take T for one.
	launch := launchWhere[T]
	if err := launch(x.s, grid, block, 0, mask.data, x.data, yd, c, scalar, out.data, span); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// Where is x where mask is nonzero, else y, element by element
// (cupy.where(mask, x, y)); the three shapes must be equal. The work is
// queued on x's stream.
func Where[T Element](mask *Array[uint8], x, y *Array[T]) (*Array[T], error) {
	var z T
	return choose("array where", mask, x, y, z, false)
}

// WhereScalar is x where mask is nonzero, else y (cupy.where(mask, x,
// y) with a scalar y, as in where(a > 0, a, 0)).
func WhereScalar[T Element](mask *Array[uint8], x *Array[T], y T) (*Array[T], error) {
	return choose("array where scalar", mask, x, nil, y, true)
}

// Clip is a with each element raised to lo and then lowered to hi
// (cupy.clip(a, lo, hi)): where lo > hi every element is hi, as in
// NumPy, and a NaN element stays NaN.
func Clip[T Element](a *Array[T], lo, hi T) (*Array[T], error) {
	const op = "array clip"
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if a.size == 0 {
		return out, nil
	}
	grid, block, span := launchShape(a.s, a.size)
	// A value, not a call of the generic launcher: hipgo-gen takes the
	// instances from the kernel's directive, and would take T for one.
	launch := launchClip[T]
	if err := launch(a.s, grid, block, 0, a.data, out.data, lo, hi, span); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}
