package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Unroll(t kernel.Thread, x []int32) {
	//hipgo:unroll
	x[0] = 1
}
