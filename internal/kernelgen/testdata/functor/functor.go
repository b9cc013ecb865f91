// Package functor is a user's own operations, functors of a generic
// kernel: zero-size types whose value method is the device function, as
// a C++ functor's operator() is.
package functor

import "github.com/hipgo/hipgo/rocr/kernel"

// Op is an associative operation over T.
type Op[T any] interface{ Apply(a, b T) T }

// maxAbs is |a| max |b|.
type maxAbs struct{}

func (m maxAbs) Apply(a, b float32) float32 {
	if a, b = kernel.Abs(a), kernel.Abs(b); b > a {
		return b
	}
	return a
}

// wrapMul multiplies with Go's wrapping.
type wrapMul struct{}

func (m wrapMul) Apply(a, b int32) int32 { return a * b }

// fold folds in into acc with O.
func fold[T any, O Op[T]](in []T, acc T) T {
	var o O
	for _, v := range in {
		acc = o.Apply(acc, v)
	}
	return acc
}

// Fold folds in with O into out[0], from init, in one work-item.
//
//hipgo:kernel
//hipgo:instantiate T=float32 O=maxAbs
//hipgo:instantiate T=int32 O=wrapMul
func Fold[T any, O Op[T]](t kernel.Thread, in, out []T, init T) {
	if t.GlobalX() == 0 {
		out[0] = fold[T, O](in, init)
	}
}
