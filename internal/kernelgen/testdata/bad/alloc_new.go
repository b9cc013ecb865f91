package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func New(t kernel.Thread, x []int32) {
	p := new(int32)
	x[0] = *p
}
