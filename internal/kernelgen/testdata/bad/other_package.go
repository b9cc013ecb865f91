package bad

import (
	"math/bits"

	"github.com/hipgo/hipgo/rocr/kernel"
)

//hipgo:kernel
func OtherPackage(t kernel.Thread, x []int32) {
	x[0] = int32(bits.OnesCount32(uint32(x[0])))
}
