package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Closure(t kernel.Thread, x []int32) {
	f := func() int32 { return 1 }
	x[0] = f()
}
