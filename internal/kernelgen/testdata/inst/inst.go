// Package inst calls the library's functions that take an operation of
// its own: the generator instantiates each (functor, types) once.
package inst

import (
	"github.com/hipgo/hipgo/gpu/array"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/stream"
)

type scale2 struct{}

func (o scale2) Apply(x float32) float32 { return 2 * x }

type lerp struct{}

func (o lerp) Apply(a, b float64, t float32) float64 { return a + (b-a)*float64(t) }

type bitOr struct{}

func (o bitOr) Apply(a, b uint32) uint32 { return a | b }
func (o bitOr) Identity() uint32         { return 0 }

type byLow struct{}

func (o byLow) Less(a, b int16) bool { return a&255 < b&255 }

func use(s *stream.Stream, a *array.Array[float32], b, c *array.Array[float64], in, out buffer.Array[uint32], k buffer.Array[int16], v buffer.Array[float32]) {
	_, _ = array.Map1(scale2{}, a)
	_, _ = array.Map3(lerp{}, b, c, a)
	_ = prim.ReduceWith(s, bitOr{}, in, out)
	_ = prim.InclusiveScanWith(s, bitOr{}, in, out)
	_ = prim.ExclusiveScanWith(s, bitOr{}, in, out) // the same kernel: once
	_ = prim.MergeSortWith(s, byLow{}, k, k)
	_ = prim.MergeSortPairsWith(s, byLow{}, k, k, v, v) // the same kernels, whatever the values
	_, _ = array.Map1[scale2, float32](scale2{}, a)     // the same instance: once
	_, _ = array.Sum(a)                                 // no operation: nothing
}
