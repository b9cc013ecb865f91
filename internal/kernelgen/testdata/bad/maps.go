package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Map(t kernel.Thread, x []int32) {
	var m map[int32]int32
	x[0] = m[1]
}
