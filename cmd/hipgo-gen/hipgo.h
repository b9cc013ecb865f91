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

// min and max, as HIP and CUDA declare them for device code: the integer
// ones compare, the floating-point ones are fminf/fmaxf (a NaN loses to a
// number).
#define HIPGO_MINMAX(T)                                                        \
  HIPGO_DEV T min(T a, T b) { return a < b ? a : b; }                          \
  HIPGO_DEV T max(T a, T b) { return a > b ? a : b; }
HIPGO_MINMAX(int)
HIPGO_MINMAX(unsigned)
HIPGO_MINMAX(long long)
HIPGO_MINMAX(unsigned long long)
#undef HIPGO_MINMAX
HIPGO_DEV float min(float a, float b) { return __builtin_fminf(a, b); }
HIPGO_DEV float max(float a, float b) { return __builtin_fmaxf(a, b); }
HIPGO_DEV double min(double a, double b) { return __builtin_fmin(a, b); }
HIPGO_DEV double max(double a, double b) { return __builtin_fmax(a, b); }

// Atomics as HIP declares them: relaxed, device (agent) scope, returning
// the old value. atomicAdd, atomicSub, atomicMax, atomicMin, atomicExch and
// atomicCAS take int, unsigned, unsigned long long, float and double
// (atomicMax and atomicMin also long long); atomicAnd, atomicOr and
// atomicXor the integer types. On AMDGPU they are clang's __hip_atomic
// builtins, as HIP's headers use; on NVPTX the __atomic builtins, which
// clang lowers to atom.* at device scope (a compare-and-swap loop for
// float max and min, which PTX lacks).
#if defined(__AMDGPU__)
#define HIPGO_RMW(op, p, v)                                                    \
  __hip_atomic_fetch_##op(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define HIPGO_XCHG(p, v)                                                       \
  __hip_atomic_exchange(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)
#define HIPGO_CAS(p, cmp, v)                                                   \
  __hip_atomic_compare_exchange_strong(p, cmp, v, __ATOMIC_RELAXED,            \
                                       __ATOMIC_RELAXED,                       \
                                       __HIP_MEMORY_SCOPE_AGENT)
#else
#define HIPGO_RMW(op, p, v) __atomic_fetch_##op(p, v, __ATOMIC_RELAXED)
#define HIPGO_XCHG(p, v)                                                       \
  ({                                                                           \
    __typeof__(v) __in = (v), __out;                                           \
    __atomic_exchange(p, &__in, &__out, __ATOMIC_RELAXED);                     \
    __out;                                                                     \
  })
#define HIPGO_CAS(p, cmp, v)                                                   \
  ({                                                                           \
    __typeof__(v) __in = (v);                                                  \
    __atomic_compare_exchange(p, cmp, &__in, false, __ATOMIC_RELAXED,          \
                              __ATOMIC_RELAXED);                               \
  })
#endif

#define HIPGO_ATOMIC_COMMON(T)                                                 \
  HIPGO_DEV T atomicAdd(T *p, T v) { return HIPGO_RMW(add, p, v); }            \
  HIPGO_DEV T atomicSub(T *p, T v) { return HIPGO_RMW(sub, p, v); }            \
  HIPGO_DEV T atomicExch(T *p, T v) { return HIPGO_XCHG(p, v); }               \
  HIPGO_DEV T atomicCAS(T *p, T cmp, T v) {                                    \
    HIPGO_CAS(p, &cmp, v);                                                     \
    return cmp;                                                                \
  }
#define HIPGO_ATOMIC_INT(T)                                                    \
  HIPGO_ATOMIC_COMMON(T)                                                       \
  HIPGO_DEV T atomicMax(T *p, T v) { return HIPGO_RMW(max, p, v); }            \
  HIPGO_DEV T atomicMin(T *p, T v) { return HIPGO_RMW(min, p, v); }            \
  HIPGO_DEV T atomicAnd(T *p, T v) { return HIPGO_RMW(and, p, v); }            \
  HIPGO_DEV T atomicOr(T *p, T v) { return HIPGO_RMW(or, p, v); }              \
  HIPGO_DEV T atomicXor(T *p, T v) { return HIPGO_RMW(xor, p, v); }
HIPGO_ATOMIC_INT(int)
HIPGO_ATOMIC_INT(unsigned)
HIPGO_ATOMIC_INT(unsigned long long)
HIPGO_DEV long long atomicMax(long long *p, long long v) { return HIPGO_RMW(max, p, v); }
HIPGO_DEV long long atomicMin(long long *p, long long v) { return HIPGO_RMW(min, p, v); }

#if defined(__AMDGPU__)
#define HIPGO_ATOMIC_FLOAT(T, U)                                               \
  HIPGO_ATOMIC_COMMON(T)                                                       \
  HIPGO_DEV T atomicMax(T *p, T v) { return HIPGO_RMW(max, p, v); }            \
  HIPGO_DEV T atomicMin(T *p, T v) { return HIPGO_RMW(min, p, v); }
#else
// PTX has no floating-point max or min atomic: a loop of compare-and-swap
// on the bits, which stops as soon as the stored value wins.
#define HIPGO_ATOMIC_FLOAT(T, U)                                               \
  HIPGO_ATOMIC_COMMON(T)                                                       \
  HIPGO_DEV T __hipgo_atomic_pick(T *p, T v, bool want_max) {                  \
    U *q = (U *)p;                                                             \
    U old = __atomic_load_n(q, __ATOMIC_RELAXED);                              \
    for (;;) {                                                                 \
      T cur = __builtin_bit_cast(T, old);                                      \
      T next = want_max ? __builtin_fmax(cur, v) : __builtin_fmin(cur, v);     \
      if (__builtin_bit_cast(U, next) == old ||                                \
          HIPGO_CAS(q, &old, __builtin_bit_cast(U, next)))                     \
        return cur;                                                            \
    }                                                                          \
  }                                                                            \
  HIPGO_DEV T atomicMax(T *p, T v) { return __hipgo_atomic_pick(p, v, true); } \
  HIPGO_DEV T atomicMin(T *p, T v) { return __hipgo_atomic_pick(p, v, false); }
#endif
HIPGO_ATOMIC_FLOAT(float, unsigned)
HIPGO_ATOMIC_FLOAT(double, unsigned long long)

#undef HIPGO_ATOMIC_FLOAT
#undef HIPGO_ATOMIC_INT
#undef HIPGO_ATOMIC_COMMON
#undef HIPGO_RMW
#undef HIPGO_XCHG
#undef HIPGO_CAS

#endif // HIPGO_H
