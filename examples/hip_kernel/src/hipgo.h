// hipgo.h: the portability header for HIP sources built without a ROCm or CUDA SDK.
//
// hipgo-gen -header FILE writes this file where a kernel source includes it.
//
// The same source compiles, with no ROCm or CUDA SDK, as
//
//   clang -x hip  --cuda-device-only --offload-arch=gfxXXX    -nogpuinc  -nogpulib
//   clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_XX    -nocudainc -nocudalib
//
// so it defines the few pieces of the HIP/CUDA language that those headers
// would: the execution-space attributes, the built-in index variables,
// __syncthreads. Kernels are declared with HIPGO_KERNEL, which gives them C
// linkage: their symbols are the plain names (vector_add, vector_add.kd) that
// the Go side looks up.
//
// On AMDGPU the index variables follow HIP with code object v5: blockDim reads
// hidden_group_size_* and gridDim reads hidden_block_count_* from the implicit
// kernel arguments, so every kernel that uses them carries those hidden
// arguments after its own (see the .args of its metadata).
#ifndef HIPGO_H
#define HIPGO_H

#if !defined(__HIP__) && !defined(__CUDA__)
#error "hipgo.h: compile as -x hip or -x cuda"
#endif
#if !defined(__AMDGPU__) && !defined(__NVPTX__)
#error "hipgo.h: device-only compilation expected (--cuda-device-only)"
#endif

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))

// HIPGO_KERNEL declares a kernel with an unmangled symbol name.
#define HIPGO_KERNEL extern "C" __global__

#define HIPGO_DEV static __device__ __forceinline__

#if defined(__AMDGPU__)

HIPGO_DEV unsigned __hipgo_tid_x() { return __builtin_amdgcn_workitem_id_x(); }
HIPGO_DEV unsigned __hipgo_tid_y() { return __builtin_amdgcn_workitem_id_y(); }
HIPGO_DEV unsigned __hipgo_tid_z() { return __builtin_amdgcn_workitem_id_z(); }
HIPGO_DEV unsigned __hipgo_bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
HIPGO_DEV unsigned __hipgo_bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
HIPGO_DEV unsigned __hipgo_bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
// With code object v5 clang-19 lowers these to loads of hidden_group_size_*
// from the implicit arguments.
HIPGO_DEV unsigned __hipgo_bdim_x() { return __builtin_amdgcn_workgroup_size_x(); }
HIPGO_DEV unsigned __hipgo_bdim_y() { return __builtin_amdgcn_workgroup_size_y(); }
HIPGO_DEV unsigned __hipgo_bdim_z() { return __builtin_amdgcn_workgroup_size_z(); }
// hidden_block_count_{x,y,z}: the first three u32 of the v5 implicit arguments.
HIPGO_DEV unsigned __hipgo_block_count(int i) {
  const unsigned __attribute__((address_space(4))) *p =
      (const unsigned __attribute__((address_space(4))) *)__builtin_amdgcn_implicitarg_ptr();
  return p[i];
}
HIPGO_DEV unsigned __hipgo_gdim_x() { return __hipgo_block_count(0); }
HIPGO_DEV unsigned __hipgo_gdim_y() { return __hipgo_block_count(1); }
HIPGO_DEV unsigned __hipgo_gdim_z() { return __hipgo_block_count(2); }

// As HIP does it: a work-group barrier between release and acquire fences, so
// shared (LDS) and global writes before it are visible after it.
HIPGO_DEV void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#else // __NVPTX__

HIPGO_DEV unsigned __hipgo_tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
HIPGO_DEV unsigned __hipgo_tid_y() { return __nvvm_read_ptx_sreg_tid_y(); }
HIPGO_DEV unsigned __hipgo_tid_z() { return __nvvm_read_ptx_sreg_tid_z(); }
HIPGO_DEV unsigned __hipgo_bid_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
HIPGO_DEV unsigned __hipgo_bid_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
HIPGO_DEV unsigned __hipgo_bid_z() { return __nvvm_read_ptx_sreg_ctaid_z(); }
HIPGO_DEV unsigned __hipgo_bdim_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
HIPGO_DEV unsigned __hipgo_bdim_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
HIPGO_DEV unsigned __hipgo_bdim_z() { return __nvvm_read_ptx_sreg_ntid_z(); }
HIPGO_DEV unsigned __hipgo_gdim_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
HIPGO_DEV unsigned __hipgo_gdim_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
HIPGO_DEV unsigned __hipgo_gdim_z() { return __nvvm_read_ptx_sreg_nctaid_z(); }

// __syncthreads is a clang builtin for NVPTX (bar.sync 0); nothing to define.

#endif

// threadIdx.x and friends read like the HIP/CUDA variables; each member is a
// property whose getter is one of the builtins above (the way clang's own
// CUDA header does it).
#define HIPGO_BUILTIN_VAR(type, name, fx, fy, fz)                              \
  struct type {                                                                \
    __declspec(property(get = __get_x)) unsigned x;                            \
    __declspec(property(get = __get_y)) unsigned y;                            \
    __declspec(property(get = __get_z)) unsigned z;                            \
    static __device__ __forceinline__ unsigned __get_x() { return fx(); }      \
    static __device__ __forceinline__ unsigned __get_y() { return fy(); }      \
    static __device__ __forceinline__ unsigned __get_z() { return fz(); }      \
  };                                                                           \
  static __device__ const type name

HIPGO_BUILTIN_VAR(__hipgo_threadIdx_t, threadIdx, __hipgo_tid_x, __hipgo_tid_y, __hipgo_tid_z);
HIPGO_BUILTIN_VAR(__hipgo_blockIdx_t, blockIdx, __hipgo_bid_x, __hipgo_bid_y, __hipgo_bid_z);
HIPGO_BUILTIN_VAR(__hipgo_blockDim_t, blockDim, __hipgo_bdim_x, __hipgo_bdim_y, __hipgo_bdim_z);
HIPGO_BUILTIN_VAR(__hipgo_gridDim_t, gridDim, __hipgo_gdim_x, __hipgo_gdim_y, __hipgo_gdim_z);

#undef HIPGO_BUILTIN_VAR

#endif // HIPGO_H
