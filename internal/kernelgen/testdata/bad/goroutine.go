package bad

import "github.com/hipgo/hipgo/rocr/kernel"

func work(x []int32) { x[0] = 1 }

//hipgo:kernel
func Go(t kernel.Thread, x []int32) {
	go work(x)
}
