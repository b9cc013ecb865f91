package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Chan(t kernel.Thread, x []int32) {
	var c chan int32
	x[0] = <-c
}
