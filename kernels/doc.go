// Package kernels is hipgo's kernel library: seven kernels (empty,
// vector_add, saxpy, fill_f32, reduce_sum, transpose, sgemm) for every
// kind of agent, each written once, in Go (kernels.go).
//
//   - kernels.go holds the kernels, per work-item as HIP writes them, in
//     the kernel subset of rocr/kernel. `go generate` (hipgo-gen -go)
//     translates them to gen/kernels.cu and, with clang-19, builds
//     AMDGPUBundle, PTXsm80 and PTXsm90 from it; kernels_gen.go holds the
//     typed launchers (LaunchVectorAdd, ...) and the cpu agent's
//     registration of the same Go functions (CPUSet).
//   - Each kernel keeps the C signature of the HIP kernel it replaced, so
//     LaunchKernelGGL(set.VectorAdd, ..., a, b, c, int32(n)) and C
//     programs that load the PTX pass the same arguments. Every code
//     object also holds NAME_checked, the entry point checked mode uses.
//
// The launchers and the convenience calls (VectorAdd, Sgemm, ...) are safe
// for concurrent use; kernels run on the cpu agent's workers as Go code.
package kernels
