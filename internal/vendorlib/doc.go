// Package vendorlib finds and opens the vendor GPU libraries hipgo uses at
// run time, with purego, and binds their symbols. It is the one table of
// library names, override variables and search paths: the drivers open
// CUDA (libcuda.so.1) and ROCm (libhsa-runtime64.so.1) through it, the gpu
// packages NVRTC and hipRTC (gpu/rtc), cuBLAS and rocBLAS (gpu/blas), cuFFT (gpu/fft), NCCL
// and RCCL (gpu/collective) and the HIP runtime those AMD libraries run on,
// and the doctor (cmd/gpuinfo/internal/doctor) reports from the same table (All).
//
// Each library has one override variable named HIPGO_<RUNTIME>_LIBRARY
// (HIPGO_CUDA_LIBRARY, HIPGO_ROCM_LIBRARY, HIPGO_NVRTC_LIBRARY, ...); older
// names stay accepted as aliases. When the variable is set, its path alone
// is tried. Otherwise the library is opened by name (the dynamic loader's
// search path) and from the runtime's own directories, in the order
// Candidates gives; a failed Open lists every candidate and why it was
// refused.
//
// Everything here is safe for concurrent use; a Handle is never closed.
package vendorlib
