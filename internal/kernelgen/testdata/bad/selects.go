package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Select(t kernel.Thread, x []int32) {
	select {}
}
