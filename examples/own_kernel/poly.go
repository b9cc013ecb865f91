package main

import "github.com/hipgo/hipgo/rocr/kernel"

//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go

// poly3 evaluates y = a*x^3 + b*x^2 + c*x + d by Horner's rule, one
// element per work-item. x is never written, so it is a read for the
// dependency tracker and a const pointer in the C++.
//
//hipgo:kernel
func poly3(t kernel.Thread, x, y []float32, a, b, c, d float32) {
	i := t.GlobalX()
	if i < len(y) && i < len(x) {
		v := x[i]
		y[i] = ((a*v+b)*v+c)*v + d
	}
}
