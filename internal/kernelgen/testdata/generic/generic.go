package generic

import (
	"golang.org/x/exp/constraints"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// Number is the package's own constraint.
type Number interface {
	~int32 | ~float32 | ~float64
}

// Celsius is a named type a kernel is instantiated for.
type Celsius float32

// Axpy is y = a*x + y.
//
//hipgo:kernel
//hipgo:instantiate T=float32,int32,float64
//hipgo:instantiate T=Celsius
func Axpy[T Number](t kernel.Thread, a T, x, y []T) {
	if i := t.GlobalX(); i < len(y) {
		y[i] = a*x[i] + y[i]
	}
}

// BlockSum sums each block's elements through shared memory.
//
//hipgo:kernel maxthreads=64 minblocks=2
//hipgo:instantiate T=float64,int16
func BlockSum[T constraints.Integer | constraints.Float](t kernel.Thread, in, out []T) {
	part := kernel.Shared[[64]T](t)
	tid := t.ThreadIdx().X
	part[tid] = in[t.GlobalX()]
	t.SyncThreads()
	if tid == 0 {
		var s T
		for _, v := range part {
			s += v
		}
		out[t.BlockIdx().X] = s
	}
}

// Convert converts each element.
//
//hipgo:kernel
//hipgo:instantiate S=int32 D=float32,float64
func Convert[S, D Number](t kernel.Thread, in []S, out []D) {
	i := t.GlobalX()
	out[i] = D(in[i])
}

// Fill sets every element to v; the package's calls of LaunchFill
// instantiate it.
//
//hipgo:kernel
func Fill[T any](t kernel.Thread, out []T, v T) {
	out[t.GlobalX()] = v
}
