package array

//go:generate go run ../../cmd/hipgo-gen -go . -prefix launch -o kernels_gen.go

import "github.com/hipgo/hipgo/rocr/kernel"

// The package's own element-wise kernels, for what gpu/prim's Transform
// has no operation for: comparisons into uint8 masks, selection by a
// mask, clipping, conversions between element types and the nonzero
// flags of CountNonzero, Any and All. Each is generic over Element and
// runs a span of elements per work-item on the cpu agent (span > 0) and
// a grid-stride loop on a GPU (span 0), as gpu/prim's transforms do.

// Comparisons (compare's op).
const (
	cmpEqual int32 = iota
	cmpNotEqual
	cmpLess
	cmpLessEqual
	cmpGreater
	cmpGreaterEqual
)

// Element-wise arithmetic of two arrays that broadcast (arith's op).
const (
	arAdd int32 = iota
	arSub
	arMul
	arDiv
	arMinimum
	arMaximum
)

// at is where an operand is read for the result's element i: at i (d 0),
// at 0 (m 1: one element), or at (i/d)%m (broadcast; map.go's broadcast
// sets d and m).
func at(i, d, m int) int {
	if m == 1 {
		return 0
	}
	if d == 0 {
		return i
	}
	return i / d % m
}

// arith is out = x op y of operands that broadcast: x read at
// at(i, dx, mx), y at at(i, dy, my). Operands of one shape go through
// gpu/prim's Transform2 instead.
//
//hipgo:kernel
//hipgo:instantiate T=int32,uint32,int64,uint64,float32,float64
func arith[T Number](t kernel.Thread, x []T, dx, mx int, y []T, dy, my int, out []T, op int32, span int) {
	lo, hi, step := rangeOf(t, len(out), span)
	for i := lo; i < hi; i += step {
		a, b := x[at(i, dx, mx)], y[at(i, dy, my)]
		var r T
		switch op {
		case arSub:
			r = a - b
		case arMul:
			r = a * b
		case arDiv:
			r = a / b
		case arMinimum:
			r = min(a, b)
		case arMaximum:
			r = max(a, b)
		default:
			r = a + b
		}
		out[i] = r
	}
}

// rangeOf is the elements [lo, hi) of n, step apart, that a work-item
// takes: a span of them on the cpu agent, a grid-stride loop on a GPU.
func rangeOf(t kernel.Thread, n, span int) (int, int, int) {
	if span > 0 {
		lo := t.GlobalX() * span
		return lo, min(lo+span, n), 1
	}
	return t.GlobalX(), n, t.BlockDim().X * t.GridDim().X
}

// holds is x op y, Go's comparison (NaN compares unequal to everything).
func holds[T Element](x, y T, op int32) bool {
	switch op {
	case cmpEqual:
		return x == y
	case cmpNotEqual:
		return x != y
	case cmpLess:
		return x < y
	case cmpLessEqual:
		return x <= y
	case cmpGreater:
		return x > y
	}
	return x >= y
}

// compare is out = x op y as 1 or 0, y or, where scalar, c; the
// operands broadcast (x read at at(i, dx, mx), y at at(i, dy, my)).
//
//hipgo:kernel
//hipgo:instantiate T=uint8,int32,uint32,int64,uint64,float32,float64
func compare[T Element](t kernel.Thread, x []T, dx, mx int, y []T, dy, my int, c T, scalar bool, out []uint8, op int32, span int) {
	lo, hi, step := rangeOf(t, len(out), span)
	for i := lo; i < hi; i += step {
		b := c
		if !scalar {
			b = y[at(i, dy, my)]
		}
		var r uint8
		if holds(x[at(i, dx, mx)], b, op) {
			r = 1
		}
		out[i] = r
	}
}

// where is out = x where mask is nonzero, else y[i] or, where scalar, c.
//
//hipgo:kernel
//hipgo:instantiate T=uint8,int32,uint32,int64,uint64,float32,float64
func where[T Element](t kernel.Thread, mask []uint8, x, y []T, c T, scalar bool, out []T, span int) {
	lo, hi, step := rangeOf(t, len(out), span)
	for i := lo; i < hi; i += step {
		v := c
		if mask[i] != 0 {
			v = x[i]
		} else if !scalar {
			v = y[i]
		}
		out[i] = v
	}
}

// clip is out = in raised to lo, then lowered to hi (NumPy's order: hi
// wins where lo > hi); a NaN stays NaN.
//
//hipgo:kernel
//hipgo:instantiate T=uint8,int32,uint32,int64,uint64,float32,float64
func clip[T Element](t kernel.Thread, in, out []T, lo, hi T, span int) {
	first, last, step := rangeOf(t, len(out), span)
	for i := first; i < last; i += step {
		v := in[i]
		if v < lo {
			v = lo
		}
		if v > hi {
			v = hi
		}
		out[i] = v
	}
}

// cast is out = U(in), Go's conversion. Where sat (a float to an
// integer type) a value whose truncation is out of U's range is
// saturated, below minF to minV and at or above maxF (U's highest plus
// one, exact in float64) to maxV, and NaN is 0, on every agent.
//
//hipgo:kernel
//hipgo:instantiate T=uint8,int32,uint32,int64,uint64,float32,float64 U=uint8,int32,uint32,int64,uint64,float32,float64
func cast[T, U Element](t kernel.Thread, in []T, out []U, sat bool, minF, maxF float64, minV, maxV U, span int) {
	lo, hi, step := rangeOf(t, len(out), span)
	for i := lo; i < hi; i += step {
		v := in[i]
		if sat {
			f := float64(v)
			switch {
			case f != f:
				out[i] = 0
			case f < minF:
				out[i] = minV
			case f >= maxF:
				out[i] = maxV
			default:
				out[i] = U(v)
			}
			continue
		}
		out[i] = U(v)
	}
}

// nonzero is out = 1 where in is nonzero, else 0: the flags that
// gpu/prim's reductions count (CountNonzero) or fold (Any, All).
//
//hipgo:kernel
//hipgo:instantiate T=uint8,int32,uint32,int64,uint64,float32,float64
func nonzero[T Element](t kernel.Thread, in []T, out []int64, span int) {
	lo, hi, step := rangeOf(t, len(out), span)
	for i := lo; i < hi; i += step {
		var r int64
		if in[i] != 0 {
			r = 1
		}
		out[i] = r
	}
}
