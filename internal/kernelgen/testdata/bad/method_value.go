package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func MethodValue(t kernel.Thread, x []int32) {
	f := t.SyncThreads
	_ = f
}
