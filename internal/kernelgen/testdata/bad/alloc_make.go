package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Make(t kernel.Thread, x []float32) {
	tmp := make([]float32, 4)
	x[0] = tmp[0]
}
