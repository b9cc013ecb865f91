package bad

import "github.com/hipgo/hipgo/rocr/kernel"

func done(x []int32) { x[0] = 1 }

//hipgo:kernel
func Defer(t kernel.Thread, x []int32) {
	defer done(x)
}
