package array

import (
	"errors"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
)

// isFloat tells float element types from integers.
func isFloat[T Element]() bool {
	switch any((*T)(nil)).(type) {
	case *float32, *float64:
		return true
	}
	return false
}

// saturation is U's range for a float-to-integer conversion: below minF
// is minV, at or above maxF (U's highest plus one, a power of two and
// exact in float64) is maxV.
func saturation[U Element]() (minF, maxF float64, minV, maxV U) {
	switch p := any(&maxV).(type) {
	case *uint8:
		*p, maxF = 1<<8-1, 1<<8
	case *int32:
		*p, maxF = 1<<31-1, 1<<31
		*any(&minV).(*int32), minF = -1<<31, -1<<31
	case *uint32:
		*p, maxF = 1<<32-1, 1<<32
	case *int64:
		*p, maxF = 1<<63-1, 1<<63
		*any(&minV).(*int64), minF = -1<<63, -1<<63
	case *uint64:
		*p, maxF = 1<<64-1, 1<<64
	}
	return minF, maxF, minV, maxV
}

// AsType is a converted to element type U (a.astype(U) in CuPy), a new
// array of a's shape on a's stream, each element converted as Go
// converts it: integers to narrower integers keep their low bits,
// integers to wider ones extend their sign, integers to floats round to
// the nearest, floats to integers truncate toward zero, float64 to
// float32 rounds to the nearest (to ±Inf past float32's range). A float
// whose truncation is out of U's range, where Go leaves the value to the
// implementation, is U's lowest value below the range and its highest
// above it, and NaN is 0, on every agent (as CUDA's saturating
// conversion and NumPy on most machines give). AsType to a's own type
// is a copy.
func AsType[U, T Element](a *Array[T]) (*Array[U], error) {
	const op = "array astype"
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[U](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if a.size == 0 {
		return out, nil
	}
	sat := isFloat[T]() && !isFloat[U]()
	var minF, maxF float64
	var minV, maxV U
	if sat {
		minF, maxF, minV, maxV = saturation[U]()
	}
	grid, block, span := launchShape(a.s, a.size)
	// A value, not a call of the generic launcher: hipgo-gen takes the
	// instances from the kernel's directive, and would take T for one.
	launch := launchCast[T, U]
	if err := launch(a.s, grid, block, 0, a.data, out.data, sat, minF, maxF, minV, maxV, span); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// flags is a's nonzero flags (1 or 0, int64) in a temporary from a's
// stream's pool, which the caller frees in the stream's order.
func flags[T Element](a *Array[T]) (*buffer.Buffer[int64], error) {
	f, err := buffer.NewAsync[int64](a.s, a.size)
	if err != nil {
		return nil, err
	}
	if a.size == 0 {
		return f, nil
	}
	grid, block, span := launchShape(a.s, a.size)
	// A value, not a call of the generic launcher: hipgo-gen takes the
	// instances from the kernel's directive, and would take T for one.
	launch := launchNonzero[T]
	if err := launch(a.s, grid, block, 0, a.data, f, span); err != nil {
		return nil, errors.Join(err, f.FreeAsync(a.s))
	}
	return f, nil
}

// CountNonzero is a 0-d array of the number of a's nonzero elements
// (cupy.count_nonzero with no axis; NaN counts, as it is not 0): a's
// nonzero flags summed by gpu/prim's reduction.
func CountNonzero[T Element](a *Array[T]) (out *Array[int64], err error) {
	const op = "array count nonzero"
	if err := a.check(op); err != nil {
		return nil, err
	}
	f, err := flags(a)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, f.FreeAsync(a.s)) }()
	out, err = alloc[int64](op, a.s, nil)
	if err != nil {
		return nil, err
	}
	if err := prim.Reduce(a.s, f, out.data, prim.OpSum); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// truth is a 0-d mask of whether any (isAll false) or every element of
// a is nonzero: the greatest or least of a's flags by gpu/prim's
// reduction, made a mask.
func truth[T Element](op string, a *Array[T], isAll bool) (out *Array[uint8], err error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if a.size == 0 {
		// The reductions' identities (T's lowest and highest) are no
		// flags: an empty array is all and not any, as in NumPy.
		var v uint8
		if isAll {
			v = 1
		}
		return Full(a.s, v)
	}
	f, err := flags(a)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, f.FreeAsync(a.s)) }()
	r := prim.OpMax
	if isAll {
		r = prim.OpMin
	}
	folded, err := buffer.NewAsync[int64](a.s, 1)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, folded.FreeAsync(a.s)) }()
	if err := prim.Reduce(a.s, f, folded, r); err != nil {
		return nil, err
	}
	out, err = alloc[uint8](op, a.s, nil)
	if err != nil {
		return nil, err
	}
	grid, block, span := launchShape(a.s, 1)
	if err := launchCompare(a.s, grid, block, 0, folded, 0, 0, folded, 0, 0, 0, true, out.data, cmpNotEqual, span); err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// Any is a 0-d mask, 1 where some element of a is nonzero (cupy.any
// with no axis); 0 for an empty array.
func Any[T Element](a *Array[T]) (*Array[uint8], error) { return truth("array any", a, false) }

// All is a 0-d mask, 1 where every element of a is nonzero (cupy.all
// with no axis; NaN is nonzero); 1 for an empty array.
func All[T Element](a *Array[T]) (*Array[uint8], error) { return truth("array all", a, true) }
