// Package kernel is the Go kernel SDK: what a kernel written in Go, per
// work-item as CUDA and HIP kernels are, calls. A kernel is a plain Go
// function whose first parameter is a Thread, marked for hipgo-gen with a
// //hipgo:kernel line in its doc comment:
//
//	//hipgo:kernel
//	func Saxpy(t kernel.Thread, alpha float32, x, y []float32) {
//		if i := t.GlobalX(); i < len(y) {
//			y[i] = alpha*x[i] + y[i]
//		}
//	}
//
// `go generate` (hipgo-gen -go) translates it to CUDA/HIP C++ for GPUs and
// registers the same function for the cpu agent, which runs it with Go's
// own semantics: a barrier-free kernel as a loop over a group's
// work-items, a kernel with SyncThreads or warp operations (Lockstep) with
// each work-item as a coroutine that stops at every barrier, warps of
// CPUWarpSize lanes in lockstep.
//
// A kernel written for the cpu agent alone, per work-group (the Go twin
// of a C++ kernel), is a Define whose function works on the whole Block:
// Span, BlockIdx, GroupShared, GridSync, Canceled, and rocr.Ptr's At and
// Slice through the Block.
//
// The SDK imports no driver: kernel code runs wherever a driver runs Go
// kernels (the cpu agent) and, translated, on every GPU. What a driver
// uses of it is package kernelimpl.
package kernel
