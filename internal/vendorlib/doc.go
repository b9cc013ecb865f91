// Package vendorlib says where hipgo finds the vendor GPU libraries the
// drivers open at run time (libcuda.so.1, libhsa-runtime64.so.1) and opens
// them with purego. The cuda and rocm drivers load through it and gpuinfo's
// doctor (cmd/gpuinfo/internal/doctor) reports through it, so the search
// rules and the override variables are written once.
//
// Each library has one override variable named HIPGO_<RUNTIME>_LIBRARY,
// as the project's other libraries do (HIPGO_CUDA_LIBRARY,
// HIPGO_ROCM_LIBRARY); older names stay accepted as aliases. When the
// variable is set, its path alone is tried. Otherwise the library is
// opened by name (the dynamic loader's search path), then from the
// runtime's own directories that the driver tries by full path.
//
// Everything here is safe for concurrent use; Open never closes a handle.
package vendorlib
