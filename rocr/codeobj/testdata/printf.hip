// printf from an AMDGPU kernel, built with -mprintf-kind=buffered (see
// gen.sh): clang writes each call's record into the printf buffer that the
// hidden argument hidden_printf_buffer points at, through __printf_alloc,
// and lists the format strings in amdhsa.printf. ROCm's device libraries
// define __printf_alloc; a -nogpulib build defines its own, as here.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
extern "C" __device__ int printf(const char*, ...);

// The buffer starts with two 32-bit words: the bytes of records written
// after the 8-byte header, and the buffer's whole size. A record that does
// not fit is dropped; the high bit of the first word then says so.
extern "C" __device__ __attribute__((noinline)) char* __printf_alloc(unsigned bytes) {
  typedef const __attribute__((address_space(4))) unsigned long long* kptr;
  // hidden_printf_buffer is implicit argument 9 (byte 72) in code object v5.
  char* buf = (char*)((kptr)__builtin_amdgcn_implicitarg_ptr())[9];
  unsigned* hdr = (unsigned*)buf;
  unsigned size = hdr[1];
  unsigned off = __hip_atomic_load(hdr, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  for (;;) {
    if (off >= 0x80000000u || 8ull + off + bytes > size) {
      __hip_atomic_fetch_or(hdr, 0x80000000u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
      return 0;
    }
    if (__hip_atomic_compare_exchange_strong(hdr, &off, off + bytes, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT))
      return buf + 8 + off;
  }
}

extern "C" __global__ void hello(int v, double x, const char* name, const char* fmt) {
  printf("hello %d from %s\n", v, "hipgo");
  printf("%5.2f|%-4d|%c|%s|%llx|%e|%g\n", x, v, 'A', name, (unsigned long long)v, x, x);
  printf(fmt, v);
}

extern "C" __global__ void quiet(int* p) { p[0] = 1; }
