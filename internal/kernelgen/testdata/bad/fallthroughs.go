package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Fallthrough(t kernel.Thread, x []int32) {
	switch x[0] {
	case 1:
		fallthrough
	default:
		x[0] = 2
	}
}
