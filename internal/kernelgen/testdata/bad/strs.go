package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func String(t kernel.Thread, x []int32, s string) {
	x[0] = int32(len(s))
}
