// Package faulty holds Go kernels that fail as Go code fails, for
// gokernel's checked-mode tests.
package faulty

//go:generate go run ../../../../cmd/hipgo-gen -go . -o kernels_gen.go -prefix Launch -var Library

import "github.com/hipgo/hipgo/rocr/kernel"

// fill sets x[i] = v for i < n: past len(x) when n is.
//
//hipgo:kernel
func fill(t kernel.Thread, x []float32, v float32, n int32) {
	if i := t.GlobalX(); i < int(n) {
		x[i] = v
	}
}

// divide sets x[i] /= d.
//
//hipgo:kernel
func divide(t kernel.Thread, x []int32, d int32) {
	if i := t.GlobalX(); i < len(x) {
		x[i] /= d
	}
}
