// Package badinst passes operations the generator refuses.
package badinst

import "github.com/hipgo/hipgo/gpu/array"

type withField struct{ k float32 }

func (o withField) Apply(x float32) float32 { return o.k * x }

type notStruct float32

func (o notStruct) Apply(x float32) float32 { return x }

type double struct{}

func (o double) Apply(x float32) float32 { return 2 * x }

func use(a *array.Array[float32]) {
	type local struct{ double } // Apply by embedding, but declared here
	_, _ = array.Map1(withField{k: 2}, a)
	_, _ = array.Map1(notStruct(0), a)
	_, _ = array.Map1(local{}, a)
	_, _ = array.Map2(func(x, y float32) float32 { return x + y }, a, a)
	_, _ = array.Map1(double{}, a) // fine
}
