package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func SliceLit(t kernel.Thread, x []int32) {
	y := []int32{1, 2}
	x[0] = y[0]
}
