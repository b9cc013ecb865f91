package kernels

import _ "embed" // for the go:embed code objects below

// The kernel library compiled for GPUs, from kernels/src by kernels/build.sh
// (clang-19, no ROCm or CUDA SDK). They are generated and committed so that
// building hipgo needs no compiler; `make kernels` regenerates them.
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
