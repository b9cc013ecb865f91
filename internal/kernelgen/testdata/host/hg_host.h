// hg_host.h stands in for the CUDA built-ins a generated unit calls, so
// that clang compiles the unit for the host (-x c++ -include hg_host.h)
// and a test runs its kernels one work-item at a time: NVRTC's spellings
// (the unit's __CUDACC_RTC__ branch), with a single work-item per launch
// (barriers do nothing, a shuffle or vote sees the caller alone) and
// plain memory for atomics.
#ifndef HG_HOST_H
#define HG_HOST_H

#define __CUDACC_RTC__ 1
#define __global__
#define __device__
#define __shared__
#define __constant__
#define __launch_bounds__(...)

// No system header: they define int64_t as long, the unit defines it as
// long long, as Go's int is on every GPU.
extern "C" int printf(const char*, ...);
extern "C" void* memcpy(void*, const void*, unsigned long);
extern "C" void* memset(void*, int, unsigned long);

struct hg_host_dim3 {
  unsigned x, y, z;
};
static hg_host_dim3 threadIdx, blockIdx, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};

// The float helpers a unit may call (kernel.Abs, ...), as the compilers'
// built-ins.
static inline float fabsf(float a) { return __builtin_fabsf(a); }
static inline double fabs(double a) { return __builtin_fabs(a); }

static inline void __syncthreads() {}
static inline void __syncwarp(unsigned = 0xffffffffu) {}

template <class T> static inline T atomicCAS(T* p, T c, T v) {
  T o = *p;
  if (o == c) *p = v;
  return o;
}
template <class T> static inline T atomicAdd(T* p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static inline T atomicExch(T* p, T v) { T o = *p; *p = v; return o; }
template <class T> static inline T atomicMin(T* p, T v) { T o = *p; *p = v < o ? v : o; return o; }
template <class T> static inline T atomicMax(T* p, T v) { T o = *p; *p = v > o ? v : o; return o; }
template <class T> static inline T atomicAnd(T* p, T v) { T o = *p; *p = o & v; return o; }
template <class T> static inline T atomicOr(T* p, T v) { T o = *p; *p = o | v; return o; }
template <class T> static inline T atomicXor(T* p, T v) { T o = *p; *p = o ^ v; return o; }

static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline unsigned __float_as_uint(float x) { unsigned u; memcpy(&u, &x, 4); return u; }
static inline float __uint_as_float(unsigned u) { float x; memcpy(&x, &u, 4); return x; }
static inline long long __double_as_longlong(double x) { long long u; memcpy(&u, &x, 8); return u; }
static inline double __longlong_as_double(long long u) { double x; memcpy(&x, &u, 8); return x; }

template <class T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <class T> static inline T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static inline T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
static inline unsigned __ballot_sync(unsigned, bool p) { return p ? 1u : 0u; }

// The fault record's layout, for the harness (the unit defines the type).
struct hg_fault;

#endif
