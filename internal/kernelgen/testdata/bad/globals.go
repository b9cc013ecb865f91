package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:constant
var coefs [4]float32

//hipgo:constant
var primed = [2]int32{1, 2}

//hipgo:device
var names [2]string

var plain [4]float32

//hipgo:kernel
func globalWrites(t kernel.Thread, x []float32) {
	coefs[0] = 1
	x[0] = plain[1]
	kernel.AtomicAdd(&coefs[1], 2)
}
