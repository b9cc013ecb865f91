package array

import (
	"errors"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
)

func reduce[T Number](op string, a *Array[T], f prim.Op) (*Array[T], error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, nil)
	if err != nil {
		return nil, err
	}
	if err := prim.Reduce(a.s, a.data, out.data, f); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// Sum is a 0-d array of the sum of a's elements (cupy.sum with no
// axis); 0 for an empty array. Item brings it to the host.
func Sum[T Number](a *Array[T]) (*Array[T], error) { return reduce("array sum", a, prim.OpSum) }

// Min is a 0-d array of the least of a's elements (cupy.min); T's
// highest value (+Inf) for an empty array, where CuPy raises.
func Min[T Number](a *Array[T]) (*Array[T], error) { return reduce("array min", a, prim.OpMin) }

// Max is a 0-d array of the greatest of a's elements (cupy.max); T's
// lowest value (-Inf) for an empty array.
func Max[T Number](a *Array[T]) (*Array[T], error) { return reduce("array max", a, prim.OpMax) }

// Float is an element type of Mean.
type Float interface{ float32 | float64 }

// Mean is a 0-d array of the mean of a's elements (cupy.mean with no
// axis): their Sum scaled by 1/Size on the device; NaN for an empty
// array, as NumPy and CuPy give (with a warning).
func Mean[T Float](a *Array[T]) (*Array[T], error) {
	const op = "array mean"
	out, err := reduce(op, a, prim.OpSum)
	if err != nil {
		return nil, err
	}
	inv := T(1) / T(a.size) // +Inf for an empty array: 0 * Inf is NaN
	if err := prim.Transform(a.s, out.data, out.data, prim.Scale, inv); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

func argReduce[T Number](op string, a *Array[T], isMax bool) (idx *Array[int64], err error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if a.size == 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "empty array")
	}
	v, err := buffer.NewAsync[T](a.s, 1)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, v.FreeAsync(a.s)) }()
	out, err := alloc[int64](op, a.s, nil)
	if err != nil {
		return nil, err
	}
	if isMax {
		err = prim.ArgMax(a.s, a.data, v, out.data)
	} else {
		err = prim.ArgMin(a.s, a.data, v, out.data)
	}
	if err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// ArgMin is a 0-d array of the flat (C order) index of a's least
// element, the first of equal ones (cupy.argmin); an empty array is an
// error, as in CuPy. NaNs are skipped unless every element is one (then
// the first NaN), where CuPy returns the first NaN.
func ArgMin[T Number](a *Array[T]) (*Array[int64], error) {
	return argReduce("array argmin", a, false)
}

// ArgMax is ArgMin for the greatest element (cupy.argmax).
func ArgMax[T Number](a *Array[T]) (*Array[int64], error) {
	return argReduce("array argmax", a, true)
}

// Cumsum is the inclusive prefix sum of a's elements in C order, as a
// one-dimensional array (cupy.cumsum with no axis).
func Cumsum[T Number](a *Array[T]) (*Array[T], error) {
	const op = "array cumsum"
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, []int{a.size})
	if err != nil {
		return nil, err
	}
	if err := prim.InclusiveSum(a.s, a.data, out.data); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

func check1D[T Number](op string, a *Array[T]) error {
	if err := a.check(op); err != nil {
		return err
	}
	if len(a.shape) != 1 {
		return gpu.Errorf(gpu.ErrNotSupported, op, "a %d-d array: sorts take one dimension (Ravel for the flat order)", len(a.shape))
	}
	return nil
}

// Sort is a sorted copy of a one-dimensional array, ascending, stable
// (cupy.sort); floats in gpu/prim's order, -NaN < -Inf < ... < +Inf <
// +NaN. More dimensions are ErrNotSupported for now.
func Sort[T Number](a *Array[T]) (*Array[T], error) {
	const op = "array sort"
	if err := check1D(op, a); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if err := prim.SortKeys(a.s, a.data, out.data, prim.SortOrder{}); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// Argsort is the indices that sort a one-dimensional array, stable
// (cupy.argsort): a[idx[0]] <= a[idx[1]] <= ...
func Argsort[T Number](a *Array[T]) (idx *Array[int64], err error) {
	const op = "array argsort"
	if err := check1D(op, a); err != nil {
		return nil, err
	}
	iota, err := Arange[int64](a.s, a.size)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, iota.Free()) }()
	keys, err := buffer.NewAsync[T](a.s, a.size)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, keys.FreeAsync(a.s)) }()
	out, err := alloc[int64](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if err := prim.SortPairs(a.s, a.data, keys, iota.data, out.data, prim.SortOrder{}); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// SumAxis is the sums along the last axis (cupy.sum(a, axis=-1)): an
// array of a's shape without its last dimension, one sum a row, through
// prim.SegmentedReduce. Other axes need strides, which arrays do not
// have yet.
func SumAxis[T Number](a *Array[T]) (*Array[T], error) {
	return reduceLast("array sum axis", a, prim.OpSum)
}

// MinAxis is the least element along the last axis (cupy.min(a, axis=-1)).
func MinAxis[T Number](a *Array[T]) (*Array[T], error) {
	return reduceLast("array min axis", a, prim.OpMin)
}

// MaxAxis is the greatest element along the last axis (cupy.max(a, axis=-1)).
func MaxAxis[T Number](a *Array[T]) (*Array[T], error) {
	return reduceLast("array max axis", a, prim.OpMax)
}

// reduceLast reduces the rows of a (its last axis) with a segmented
// reduction; the rows' offsets are made on the host and copied.
func reduceLast[T Number](op string, a *Array[T], f prim.Op) (out *Array[T], err error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if len(a.shape) == 0 {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape}, Reason: "a 0-d array has no axis"}
	}
	cols := a.shape[len(a.shape)-1]
	rows := 1
	for _, d := range a.shape[:len(a.shape)-1] {
		rows *= d
	}
	offs := make([]int64, rows+1)
	for i := range offs {
		offs[i] = int64(i * cols)
	}
	ob, err := buffer.FromSlice(a.s.Device(), offs)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, ob.FreeAsync(a.s)) }()
	out, err = alloc[T](op, a.s, a.shape[:len(a.shape)-1])
	if err != nil {
		return nil, err
	}
	if err := prim.SegmentedReduce(a.s, a.data, out.data, ob, f); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}
