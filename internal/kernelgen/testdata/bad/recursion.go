package bad

import "github.com/hipgo/hipgo/rocr/kernel"

func fact(n int32) int32 {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

//hipgo:kernel
func Recursion(t kernel.Thread, x []int32) {
	x[0] = fact(x[0])
}
