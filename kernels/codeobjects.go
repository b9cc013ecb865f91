package kernels

import _ "embed" // for the go:embed code objects below

// The kernel library compiled for GPUs: hipgo-gen -go translates the Go
// kernels of kernels.go to gen/kernels.cu and clang-19 builds these from
// it (no ROCm or CUDA SDK). They are generated and committed so that
// building hipgo needs no compiler; `go generate ./kernels` (make kernels)
// regenerates them. Each also holds every kernel's checked entry point,
// NAME_checked.
//
// Every artifact holds the same seven kernels under their C names: empty,
// vector_add, saxpy, fill_f32, reduce_sum, transpose and sgemm.
var (
	// AMDGPUBundle is a clang offload bundle (it begins with
	// "__CLANG_OFFLOAD_BUNDLE__", as `hipcc --genco` output does) holding
	// one AMDGPU code object (ELF, code object v5) for each of gfx90a,
	// gfx942, gfx1030 and gfx1100, under the bundle entry IDs
	// "hipv4-amdgcn-amd-amdhsa--<gfx>".
	//
	//go:embed gen/kernels.hipfb
	AMDGPUBundle []byte

	// PTXsm80 is PTX (ISA 7.8) for sm_80 and later GPUs.
	//
	//go:embed gen/kernels_sm80.ptx
	PTXsm80 string

	// PTXsm90 is PTX (ISA 7.8) for sm_90.
	//
	//go:embed gen/kernels_sm90.ptx
	PTXsm90 string
)
