package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Orders(t kernel.Thread, x []uint32, o kernel.Order) {
	_ = kernel.AtomicLoad(&x[0], o, kernel.ScopeDevice)
	_ = kernel.AtomicLoad(&x[0], kernel.Release, kernel.ScopeDevice)
	kernel.AtomicStore(&x[0], 1, kernel.Acquire, kernel.ScopeDevice)
}
