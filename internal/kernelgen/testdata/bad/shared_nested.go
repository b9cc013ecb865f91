package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func SharedNested(t kernel.Thread, x []int32) {
	if len(x) > 0 {
		s := kernel.Shared[[4]int32](t)
		x[0] = s[0]
	}
}
