package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Interface(t kernel.Thread, x []int32) {
	var v any = x[0]
	_ = v
}
