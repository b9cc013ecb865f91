package conformancetest

//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go

import "github.com/hipgo/hipgo/rocr/kernel"

// conformanceNop is hip-tests' NOPKernel.
//
//hipgo:kernel
func conformanceNop(t kernel.Thread) {}

// conformanceFill sets x[i] = v for i < n, the fill kernel of the cases
// that check a launch's effect.
//
//hipgo:kernel
func conformanceFill(t kernel.Thread, x []int32, v, n int32) {
	if i := t.GlobalX(); i < int(n) {
		x[i] = v
	}
}

// conformanceWarpSize writes the warp size a kernel sees, which
// hipDeviceProp_t.warpSize must agree with.
//
//hipgo:kernel
func conformanceWarpSize(t kernel.Thread, out []int32) {
	if t.GlobalX() == 0 {
		out[0] = int32(t.WarpSize())
	}
}
