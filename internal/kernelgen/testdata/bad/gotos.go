package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Goto(t kernel.Thread, x []int32) {
	goto end
end:
	x[0] = 1
}
