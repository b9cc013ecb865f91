// Package kernels is hipgo's kernel library: the same seven kernels (empty,
// vector_add, saxpy, fill_f32, reduce_sum, transpose, sgemm) for every kind
// of agent.
//
//   - kernels/src/*.hip holds the HIP C++ sources, the one definition of
//     each kernel's behaviour and argument list.
//   - AMDGPUBundle, PTXsm80 and PTXsm90 are those sources compiled by
//     kernels/build.sh (clang-19, no ROCm or CUDA SDK) and embedded, so
//     building hipgo needs no compiler.
//   - VectorAddKernel, SaxpyKernel and the other *Kernel variables are Go
//     implementations of the same kernels for the cpu agent, gathered by
//     CPUSet. Each is registered under the HIP kernel's name, and its
//     argument struct (VectorAddArgs, ...) has the HIP kernel's explicit
//     kernarg layout, so one kernarg image serves every agent.
//
// The Go kernels run one call per work-group on the cpu agent's workers and
// are safe for concurrent dispatch; the argument structs and sets are plain
// values with no state.
package kernels
