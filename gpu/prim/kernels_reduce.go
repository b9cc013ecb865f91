package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// Reductions and element-wise transforms on a GPU read their input as
// CUB's DeviceReduce and DeviceTransform do: each work-item of a block
// takes four loads per iteration, each a 16-byte vector where the
// buffers start on a 16-byte boundary (vec), striped over the block so
// that a warp's loads are contiguous, and the block strides over the
// input by its grid. The cpu agent's blocks of one work-item take
// contiguous spans instead (span > 0).

// combine4 is a's elements combined by op.
func combine4[T kernel.Shuffleable](a [4]T, op int32) T {
	return combine(combine(a[0], a[1], op), combine(a[2], a[3], op), op)
}

// stripes4 is where work-item t starts in units of n (elements or
// vectors) and its stride: chunks of four loads per work-item, one chunk
// per block per turn.
func stripes4(t kernel.Thread) (start, bd, stride int) {
	bd = t.BlockDim().X
	return t.BlockIdx().X*4*bd + t.ThreadIdx().X, bd, 4 * bd * t.GridDim().X
}

// accumulateSpan folds work-item t's contiguous span of in into acc
// (the cpu agent's shape).
func accumulateSpan[T kernel.Shuffleable](t kernel.Thread, in []T, acc T, op int32, span int) T {
	lo := min(t.GlobalX()*span, len(in))
	s := in[lo:min(lo+span, len(in))]
	switch op {
	case opMin:
		for _, x := range s {
			if x < acc {
				acc = x
			}
		}
	case opMax:
		for _, x := range s {
			if x > acc {
				acc = x
			}
		}
	default:
		acc += sumOf(s)
	}
	return acc
}

// accumulate4 folds work-item t's elements of in into acc on a GPU's
// shape: four loads in flight per turn, then the rest of the last chunk.
func accumulate4[T kernel.Shuffleable](t kernel.Thread, in []T, acc T, op int32) T {
	n := len(in)
	i, bd, stride := stripes4(t)
	for ; i+3*bd < n; i += stride {
		x0, x1, x2, x3 := in[i], in[i+bd], in[i+2*bd], in[i+3*bd]
		acc = combine(acc, combine(combine(x0, x1, op), combine(x2, x3, op), op), op)
	}
	for ; i < n; i += bd {
		acc = combine(acc, in[i], op)
	}
	return acc
}

// accumulateVec4 is accumulate4 over 4-byte elements, in on a 16-byte
// boundary: four 16-byte loads per turn; the grid's first work-items
// take the last len(in)%4 elements.
func accumulateVec4[T kernel.Word4](t kernel.Thread, in []T, acc T, op int32) T {
	n := len(in)
	nv := n / 4
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load4(in, i), kernel.Load4(in, i+bd), kernel.Load4(in, i+2*bd), kernel.Load4(in, i+3*bd)
		acc = combine(acc, combine(combine(combine4(v0, op), combine4(v1, op), op), combine(combine4(v2, op), combine4(v3, op), op), op), op)
	}
	for ; i < nv; i += bd {
		acc = combine(acc, combine4(kernel.Load4(in, i), op), op)
	}
	if g := t.GlobalX(); g < n-4*nv {
		acc = combine(acc, in[4*nv+g], op)
	}
	return acc
}

// accumulateVec2 is accumulateVec4 for 8-byte elements, two per vector.
func accumulateVec2[T kernel.Word8](t kernel.Thread, in []T, acc T, op int32) T {
	n := len(in)
	nv := n / 2
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load2(in, i), kernel.Load2(in, i+bd), kernel.Load2(in, i+2*bd), kernel.Load2(in, i+3*bd)
		acc = combine(acc, combine(combine(combine(v0[0], v0[1], op), combine(v1[0], v1[1], op), op), combine(combine(v2[0], v2[1], op), combine(v3[0], v3[1], op), op), op), op)
	}
	for ; i < nv; i += bd {
		v := kernel.Load2(in, i)
		acc = combine(acc, combine(v[0], v[1], op), op)
	}
	if g := t.GlobalX(); g < n-2*nv {
		acc = combine(acc, in[2*nv+g], op)
	}
	return acc
}

// reduceOut is the end of a pass of Reduce: acc, work-item t's share,
// combined over the block into out[block].
func reduceOut[T kernel.Shuffleable](t kernel.Thread, acc T, out []T, id T, op int32, warps *[32]T) {
	v := blockReduce(t, acc, id, op, warps)
	if t.ThreadIdx().X == 0 {
		out[t.BlockIdx().X] = v
	}
}

// reduceTo is one pass of Reduce with scalar loads: out[block] = the
// block's elements combined, starting from id.
func reduceTo[T kernel.Shuffleable](t kernel.Thread, in, out []T, id T, op int32, span int, warps *[32]T) {
	acc := id
	if span > 0 {
		acc = accumulateSpan(t, in, id, op, span)
	} else {
		acc = accumulate4(t, in, id, op)
	}
	reduceOut(t, acc, out, id, op, warps)
}

// better says whether (b, bi) wins over (a, ai) in an argmin (argmax
// when isMax): the smaller (larger) value, the first index among equal
// ones; index -1 is no element. A NaN loses to every number and, among
// NaNs, the first index wins, so a NaN is the answer only where every
// element is one (x != x is true of NaNs alone).
func better[T kernel.Shuffleable](a T, ai int64, b T, bi int64, isMax bool) bool {
	if bi < 0 {
		return false
	}
	if ai < 0 {
		return true
	}
	if a != a {
		return b == b || bi < ai
	}
	if isMax {
		return b > a || (b == a && bi < ai)
	}
	return b < a || (b == a && bi < ai)
}

// beats says whether x, at an index after vi's, wins over v in an
// argmin (argmax when isMax): a work-item visits its elements in index
// order, so only a strictly better value wins; any number beats a NaN.
func beats[T kernel.Shuffleable](v T, vi int64, x T, isMax bool) bool {
	if vi < 0 {
		return true
	}
	if v != v {
		return x == x
	}
	if isMax {
		return x > v
	}
	return x < v
}

// argPick is the best of (v, vi) and the four elements of a, at
// indices ai, ai+step, ... (after vi).
func argPick[T kernel.Shuffleable](v T, vi int64, a [4]T, ai, step int64, isMax bool) (T, int64) {
	for k := 0; k < 4; k++ {
		if beats(v, vi, a[k], isMax) {
			v, vi = a[k], ai+int64(k)*step
		}
	}
	return v, vi
}

// argPick2 is argPick for the two elements of a, at ai and ai+1.
func argPick2[T kernel.Shuffleable](v T, vi int64, a [2]T, ai int64, isMax bool) (T, int64) {
	if beats(v, vi, a[0], isMax) {
		v, vi = a[0], ai
	}
	if beats(v, vi, a[1], isMax) {
		v, vi = a[1], ai+1
	}
	return v, vi
}

// argAccumulate4 is work-item t's best element and its index on a GPU's
// shape, reading (in, its own indices) or (in, inI) when useIdx.
func argAccumulate4[T kernel.Shuffleable](t kernel.Thread, in []T, inI []int64, useIdx, isMax bool) (T, int64) {
	n := len(in)
	var v T
	vi := int64(-1)
	i, bd, stride := stripes4(t)
	for ; i+3*bd < n; i += stride {
		x := [4]T{in[i], in[i+bd], in[i+2*bd], in[i+3*bd]}
		if !useIdx {
			v, vi = argPick(v, vi, x, int64(i), int64(bd), isMax)
			continue
		}
		for k := 0; k < 4; k++ {
			if xi := inI[i+k*bd]; better(v, vi, x[k], xi, isMax) {
				v, vi = x[k], xi
			}
		}
	}
	for ; i < n; i += bd {
		x, xi := in[i], int64(i)
		if useIdx {
			xi = inI[i]
		}
		if better(v, vi, x, xi, isMax) {
			v, vi = x, xi
		}
	}
	return v, vi
}

// argAccumulateVec4 is argAccumulate4 over 4-byte elements on a 16-byte
// boundary, indexing in itself.
func argAccumulateVec4[T kernel.Word4](t kernel.Thread, in []T, isMax bool) (T, int64) {
	n := len(in)
	nv := n / 4
	var v T
	vi := int64(-1)
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load4(in, i), kernel.Load4(in, i+bd), kernel.Load4(in, i+2*bd), kernel.Load4(in, i+3*bd)
		v, vi = argPick(v, vi, v0, int64(4*i), 1, isMax)
		v, vi = argPick(v, vi, v1, int64(4*(i+bd)), 1, isMax)
		v, vi = argPick(v, vi, v2, int64(4*(i+2*bd)), 1, isMax)
		v, vi = argPick(v, vi, v3, int64(4*(i+3*bd)), 1, isMax)
	}
	for ; i < nv; i += bd {
		v, vi = argPick(v, vi, kernel.Load4(in, i), int64(4*i), 1, isMax)
	}
	if g := t.GlobalX(); g < n-4*nv {
		if x, xi := in[4*nv+g], int64(4*nv+g); better(v, vi, x, xi, isMax) {
			v, vi = x, xi
		}
	}
	return v, vi
}

// argAccumulateVec2 is argAccumulateVec4 for 8-byte elements.
func argAccumulateVec2[T kernel.Word8](t kernel.Thread, in []T, isMax bool) (T, int64) {
	n := len(in)
	nv := n / 2
	var v T
	vi := int64(-1)
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load2(in, i), kernel.Load2(in, i+bd), kernel.Load2(in, i+2*bd), kernel.Load2(in, i+3*bd)
		v, vi = argPick2(v, vi, v0, int64(2*i), isMax)
		v, vi = argPick2(v, vi, v1, int64(2*(i+bd)), isMax)
		v, vi = argPick2(v, vi, v2, int64(2*(i+2*bd)), isMax)
		v, vi = argPick2(v, vi, v3, int64(2*(i+3*bd)), isMax)
	}
	for ; i < nv; i += bd {
		v, vi = argPick2(v, vi, kernel.Load2(in, i), int64(2*i), isMax)
	}
	if g := t.GlobalX(); g < n-2*nv {
		if x, xi := in[2*nv+g], int64(2*nv+g); better(v, vi, x, xi, isMax) {
			v, vi = x, xi
		}
	}
	return v, vi
}

// argSpan is the best element and its index of work-item t's contiguous
// span (the cpu agent's shape).
func argSpan[T kernel.Shuffleable](t kernel.Thread, in []T, inI []int64, useIdx, isMax bool, span int) (T, int64) {
	var v T
	vi := int64(-1)
	lo := min(t.GlobalX()*span, len(in))
	hi := min(lo+span, len(in))
	for i := lo; i < hi; i++ {
		x, xi := in[i], int64(i)
		if useIdx {
			xi = inI[i]
		}
		if better(v, vi, x, xi, isMax) {
			v, vi = x, xi
		}
	}
	return v, vi
}

// argReduceOut combines each work-item's best (v, vi) over the block:
// outV/outI[block] get the block's best value and its index.
func argReduceOut[T kernel.Shuffleable](t kernel.Thread, v T, vi int64, outV []T, outI []int64, isMax bool, warpsV *[32]T, warpsI *[32]int64) {
	bd := t.BlockDim().X
	if bd > 1 {
		ws := t.WarpSize()
		for off := ws / 2; off > 0; off >>= 1 {
			x, xi := kernel.ShflDown(t, v, off), kernel.ShflDown(t, vi, off)
			if better(v, vi, x, xi, isMax) {
				v, vi = x, xi
			}
		}
		if bd > ws {
			lane, w := t.Lane(), t.ThreadIdx().X/ws
			if lane == 0 {
				warpsV[w], warpsI[w] = v, vi
			}
			t.SyncThreads()
			if w == 0 {
				vi = -1
				if lane < bd/ws {
					v, vi = warpsV[lane], warpsI[lane]
				}
				for off := ws / 2; off > 0; off >>= 1 {
					x, xi := kernel.ShflDown(t, v, off), kernel.ShflDown(t, vi, off)
					if better(v, vi, x, xi, isMax) {
						v, vi = x, xi
					}
				}
			}
		}
	}
	if t.ThreadIdx().X == 0 {
		outV[t.BlockIdx().X], outI[t.BlockIdx().X] = v, vi
	}
}

// argReduceTo is one pass of ArgMin/ArgMax with scalar loads: outV/outI
// [block] get the block's best value and its index. The first pass
// indexes in itself (useIdx false); the second reads the first's indices
// from inI.
func argReduceTo[T kernel.Shuffleable](t kernel.Thread, in []T, inI []int64, outV []T, outI []int64, useIdx, isMax bool, span int, warpsV *[32]T, warpsI *[32]int64) {
	var v T
	var vi int64
	if span > 0 {
		v, vi = argSpan(t, in, inI, useIdx, isMax, span)
	} else {
		v, vi = argAccumulate4(t, in, inI, useIdx, isMax)
	}
	argReduceOut(t, v, vi, outV, outI, isMax, warpsV, warpsI)
}

// unaryOf is op(x), a the operation's scalar.
func unaryOf[T kernel.Shuffleable](x T, op int32, a T) T {
	switch op {
	case opNeg:
		return -x
	case opAbs:
		if x < 0 {
			return -x
		}
		return x
	case opSquare:
		return x * x
	case opScale:
		return a * x
	}
	return x + a
}

// binaryOf is x op y.
func binaryOf[T kernel.Shuffleable](x, y T, op int32) T {
	switch op {
	case opSub:
		return x - y
	case opMul:
		return x * y
	case opDiv:
		return x / y
	case opMinimum:
		return min(x, y)
	case opMaximum:
		return max(x, y)
	}
	return x + y
}

// unary4 is unaryOf of each of v's elements.
func unary4[T kernel.Shuffleable](v [4]T, op int32, a T) [4]T {
	return [4]T{unaryOf(v[0], op, a), unaryOf(v[1], op, a), unaryOf(v[2], op, a), unaryOf(v[3], op, a)}
}

// binary4 is binaryOf of each of x's and y's elements.
func binary4[T kernel.Shuffleable](x, y [4]T, op int32) [4]T {
	return [4]T{binaryOf(x[0], y[0], op), binaryOf(x[1], y[1], op), binaryOf(x[2], y[2], op), binaryOf(x[3], y[3], op)}
}

// unary is out = op(in) with scalar loads: four loads, then four stores,
// per turn on a GPU's shape; a contiguous span on the cpu agent's.
func unary[T kernel.Shuffleable](t kernel.Thread, in, out []T, op int32, a T, span int) {
	n := len(out)
	if span > 0 {
		lo := min(t.GlobalX()*span, n)
		hi := min(lo+span, n)
		for i := lo; i < hi; i++ {
			out[i] = unaryOf(in[i], op, a)
		}
		return
	}
	i, bd, stride := stripes4(t)
	for ; i+3*bd < n; i += stride {
		x0, x1, x2, x3 := in[i], in[i+bd], in[i+2*bd], in[i+3*bd]
		out[i], out[i+bd], out[i+2*bd], out[i+3*bd] = unaryOf(x0, op, a), unaryOf(x1, op, a), unaryOf(x2, op, a), unaryOf(x3, op, a)
	}
	for ; i < n; i += bd {
		out[i] = unaryOf(in[i], op, a)
	}
}

// unaryVec4 is unary over 4-byte elements, in and out on 16-byte
// boundaries: four 16-byte loads, then four stores, per turn.
func unaryVec4[T kernel.Word4](t kernel.Thread, in, out []T, op int32, a T) {
	n := len(out)
	nv := n / 4
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load4(in, i), kernel.Load4(in, i+bd), kernel.Load4(in, i+2*bd), kernel.Load4(in, i+3*bd)
		kernel.Store4(out, i, unary4(v0, op, a))
		kernel.Store4(out, i+bd, unary4(v1, op, a))
		kernel.Store4(out, i+2*bd, unary4(v2, op, a))
		kernel.Store4(out, i+3*bd, unary4(v3, op, a))
	}
	for ; i < nv; i += bd {
		kernel.Store4(out, i, unary4(kernel.Load4(in, i), op, a))
	}
	if g := t.GlobalX(); g < n-4*nv {
		out[4*nv+g] = unaryOf(in[4*nv+g], op, a)
	}
}

// unaryVec2 is unaryVec4 for 8-byte elements.
func unaryVec2[T kernel.Word8](t kernel.Thread, in, out []T, op int32, a T) {
	n := len(out)
	nv := n / 2
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		v0, v1, v2, v3 := kernel.Load2(in, i), kernel.Load2(in, i+bd), kernel.Load2(in, i+2*bd), kernel.Load2(in, i+3*bd)
		kernel.Store2(out, i, [2]T{unaryOf(v0[0], op, a), unaryOf(v0[1], op, a)})
		kernel.Store2(out, i+bd, [2]T{unaryOf(v1[0], op, a), unaryOf(v1[1], op, a)})
		kernel.Store2(out, i+2*bd, [2]T{unaryOf(v2[0], op, a), unaryOf(v2[1], op, a)})
		kernel.Store2(out, i+3*bd, [2]T{unaryOf(v3[0], op, a), unaryOf(v3[1], op, a)})
	}
	for ; i < nv; i += bd {
		v := kernel.Load2(in, i)
		kernel.Store2(out, i, [2]T{unaryOf(v[0], op, a), unaryOf(v[1], op, a)})
	}
	if g := t.GlobalX(); g < n-2*nv {
		out[2*nv+g] = unaryOf(in[2*nv+g], op, a)
	}
}

// binary is out = x op y with scalar loads (unary's shapes).
func binary[T kernel.Shuffleable](t kernel.Thread, x, y, out []T, op int32, span int) {
	n := len(out)
	if span > 0 {
		lo := min(t.GlobalX()*span, n)
		hi := min(lo+span, n)
		for i := lo; i < hi; i++ {
			out[i] = binaryOf(x[i], y[i], op)
		}
		return
	}
	i, bd, stride := stripes4(t)
	for ; i+3*bd < n; i += stride {
		x0, x1, x2, x3 := x[i], x[i+bd], x[i+2*bd], x[i+3*bd]
		y0, y1, y2, y3 := y[i], y[i+bd], y[i+2*bd], y[i+3*bd]
		out[i], out[i+bd], out[i+2*bd], out[i+3*bd] = binaryOf(x0, y0, op), binaryOf(x1, y1, op), binaryOf(x2, y2, op), binaryOf(x3, y3, op)
	}
	for ; i < n; i += bd {
		out[i] = binaryOf(x[i], y[i], op)
	}
}

// binaryVec4 is binary over 4-byte elements, x, y and out on 16-byte
// boundaries: eight 16-byte loads, then four stores, per turn.
func binaryVec4[T kernel.Word4](t kernel.Thread, x, y, out []T, op int32) {
	n := len(out)
	nv := n / 4
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		x0, x1, x2, x3 := kernel.Load4(x, i), kernel.Load4(x, i+bd), kernel.Load4(x, i+2*bd), kernel.Load4(x, i+3*bd)
		y0, y1, y2, y3 := kernel.Load4(y, i), kernel.Load4(y, i+bd), kernel.Load4(y, i+2*bd), kernel.Load4(y, i+3*bd)
		kernel.Store4(out, i, binary4(x0, y0, op))
		kernel.Store4(out, i+bd, binary4(x1, y1, op))
		kernel.Store4(out, i+2*bd, binary4(x2, y2, op))
		kernel.Store4(out, i+3*bd, binary4(x3, y3, op))
	}
	for ; i < nv; i += bd {
		kernel.Store4(out, i, binary4(kernel.Load4(x, i), kernel.Load4(y, i), op))
	}
	if g := t.GlobalX(); g < n-4*nv {
		out[4*nv+g] = binaryOf(x[4*nv+g], y[4*nv+g], op)
	}
}

// binaryVec2 is binaryVec4 for 8-byte elements.
func binaryVec2[T kernel.Word8](t kernel.Thread, x, y, out []T, op int32) {
	n := len(out)
	nv := n / 2
	i, bd, stride := stripes4(t)
	for ; i+3*bd < nv; i += stride {
		x0, x1, x2, x3 := kernel.Load2(x, i), kernel.Load2(x, i+bd), kernel.Load2(x, i+2*bd), kernel.Load2(x, i+3*bd)
		y0, y1, y2, y3 := kernel.Load2(y, i), kernel.Load2(y, i+bd), kernel.Load2(y, i+2*bd), kernel.Load2(y, i+3*bd)
		kernel.Store2(out, i, [2]T{binaryOf(x0[0], y0[0], op), binaryOf(x0[1], y0[1], op)})
		kernel.Store2(out, i+bd, [2]T{binaryOf(x1[0], y1[0], op), binaryOf(x1[1], y1[1], op)})
		kernel.Store2(out, i+2*bd, [2]T{binaryOf(x2[0], y2[0], op), binaryOf(x2[1], y2[1], op)})
		kernel.Store2(out, i+3*bd, [2]T{binaryOf(x3[0], y3[0], op), binaryOf(x3[1], y3[1], op)})
	}
	for ; i < nv; i += bd {
		a, b := kernel.Load2(x, i), kernel.Load2(y, i)
		kernel.Store2(out, i, [2]T{binaryOf(a[0], b[0], op), binaryOf(a[1], b[1], op)})
	}
	if g := t.GlobalX(); g < n-2*nv {
		out[2*nv+g] = binaryOf(x[2*nv+g], y[2*nv+g], op)
	}
}
