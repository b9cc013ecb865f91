package badgeneric

import (
	"go/token"

	"github.com/hipgo/hipgo/rocr/kernel"
)

//hipgo:kernel
//hipgo:instantiate T=string
func Strs[T any](t kernel.Thread, out []T, v T) {
	out[t.GlobalX()] = v
}

//hipgo:kernel
//hipgo:instantiate T=int8 U=float32
func Atom[T kernel.Atomic](t kernel.Thread, out []T, v T) {
	kernel.AtomicAdd(&out[0], v)
}

//hipgo:kernel
func Lonely[T kernel.Atomic](t kernel.Thread, out []T) {
	out[0] = 0
}

//hipgo:kernel
//hipgo:instantiate T=token.Pos,nope
func Other[T any](t kernel.Thread, out []T, v T) {
	out[0] = v
}

//hipgo:kernel maxthreads=2048 minblocks=2
func Bounds(t kernel.Thread, out []int32) {
	out[0] = 1
}

var _ token.Pos

//hipgo:kernel
//hipgo:instantiate T=int8
func Atom2[T kernel.Atomic](t kernel.Thread, out []T, v T) {
	kernel.AtomicAdd(&out[0], v)
}

// Big's shared memory fits for float32 and not for float64.
//
//hipgo:kernel
//hipgo:instantiate T=float32,float64
func Big[T float32 | float64](t kernel.Thread, out []T) {
	big := kernel.Shared[[8000]T](t)
	big[0] = out[0]
}

// Op is an operation; opKernel calls one through a type parameter that
// no kernel instance names, so no method is known for it.
type Op interface{ Apply(a, b float32) float32 }

type first struct{}

func (f first) Apply(a, b float32) float32 { return a }

func apply[O Op](a, b float32) float32 {
	var o O
	return o.Apply(a, b)
}

//hipgo:kernel
func opKernel(t kernel.Thread, out []float32) {
	out[0] = apply[first](out[0], 1)
}
