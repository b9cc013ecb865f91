package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Panic(t kernel.Thread, x []int32) {
	if len(x) == 0 {
		panic("empty")
	}
}
