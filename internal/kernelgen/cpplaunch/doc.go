// Package cpplaunch writes typed Go launchers for kernels written in HIP or
// CUDA C++ (hipgo-gen -src): it reads their HIPGO_KERNEL or extern "C"
// __global__ declarations, maps each parameter's C type onto a Go type,
// checks the declarations against the code objects clang built (argument
// count, offsets, sizes, pointers and values) and, with a cpu agent twin
// (-cpu), the twin's argument struct against the declarations. Every
// disagreement fails the generation.
//
// Kernels written in Go are the translator's (package kernelgen and its
// Go back end, goback); this package only reads C++ declarations.
package cpplaunch
