// A kernel whose printf goes through hostcall, HIP's default printf kind:
// clang calls the device library's __ockl_printf_* functions, stubbed here
// (the real ones hand the record to a host thread through the hostcall
// buffer). hipgo refuses such code objects at load.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
extern "C" __device__ int printf(const char*, ...);
__device__ unsigned long hostcall_sink;
#define STUB extern "C" __device__ __attribute__((noinline, used))
STUB unsigned long __ockl_printf_begin(unsigned long v) { return hostcall_sink += v; }
STUB unsigned long __ockl_printf_append_args(
    unsigned long d, unsigned n, unsigned long a0, unsigned long a1, unsigned long a2,
    unsigned long a3, unsigned long a4, unsigned long a5, unsigned long a6, unsigned last) {
  return hostcall_sink += d + n + a0 + a1 + a2 + a3 + a4 + a5 + a6 + last;
}
STUB unsigned long __ockl_printf_append_string_n(
    unsigned long d, const char* s, unsigned long n, unsigned last) {
  return hostcall_sink += d + (unsigned long)s + n + last;
}
extern "C" __global__ void hello(int v) { printf("hello %d\n", v); }
