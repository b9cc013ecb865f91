package bad

import "github.com/hipgo/hipgo/rocr/kernel"

type acc struct{ n int32 }

func (a *acc) add(v int32) { a.n += v }

//hipgo:kernel
func PointerMethod(t kernel.Thread, x []int32) {
	var a acc
	a.add(x[0])
	x[0] = a.n
}
