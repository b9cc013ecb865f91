package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Append(t kernel.Thread, x []int32) {
	x = append(x, 1)
}
