package main

//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go

import "github.com/hipgo/hipgo/rocr/kernel"

// The fused expressions: each is one Apply, so one kernel and one pass
// over memory, however many operations it holds. A functor is a struct
// type without fields; values that vary at run time come in as arrays
// (a 0-d array broadcasts like a scalar).

// axpyClip is clip(a*x + y, -1, 1).
type axpyClip struct{}

func (o axpyClip) Apply(a, x, y float32) float32 {
	return min(max(a*x+y, -1), 1)
}

// softplus is log(1 + e^x), computed as x + log(1 + e^-x) for large x
// so that e^x does not overflow.
type softplus struct{}

func (o softplus) Apply(x float32) float32 {
	if x > 0 {
		return x + kernel.Log(1+kernel.Exp(-x))
	}
	return kernel.Log(1 + kernel.Exp(x))
}

// sqDist is the squared distance from (x, y) to (cx, cy).
type sqDist struct{}

func (o sqDist) Apply(x, y, cx, cy float64) float64 {
	dx, dy := x-cx, y-cy
	return dx*dx + dy*dy
}

// farthest is the largest of its operands: a reduction (prim.ReduceWith)
// and a running maximum (prim.InclusiveScanWith) whose identity is 0 for
// squared distances.
type farthest struct{}

func (o farthest) Apply(a, b float64) float64 { return max(a, b) }
func (o farthest) Identity() float64          { return 0 }

// fartherFirst orders squared distances from the largest down: a merge
// sort's comparator (prim.MergeSortPairsWith).
type fartherFirst struct{}

func (o fartherFirst) Less(a, b float64) bool { return a > b }
