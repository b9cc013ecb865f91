// reliability.hip: the GPU forms of internal/reliability's Go test kernels
// (helpers_test.go), with the same names and argument layouts, so that the
// misuse and stress tests launch the same calls on a cuda device. gen.sh
// compiles it to PTX; the outputs are committed.
//
// A GPU kernel cannot be cancelled or made to panic the way a Go kernel
// can: spin and store poll a clock and give up after spin_cap_ns, panic
// traps (which ends the CUDA context), and overrun writes past its buffer
// unchecked (a fault, or silent corruption within the allocation's page).
#include "hipgo.h"

#if !defined(__NVPTX__)
#error "reliability.hip: only PTX is generated (see gen.sh)"
#endif

// No kernel here outlasts 10 s, whatever it is asked: nothing can stop it.
#define SPIN_CAP_NS 10000000000ull

HIPGO_DEV unsigned long long now_ns() { return __nvvm_read_ptx_sreg_globaltimer(); }

HIPGO_DEV bool first_item() {
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0 &&
         blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
}

// sleep_ms waits ms milliseconds (negative: until *flag is non-zero, where
// flag is not null), never longer than SPIN_CAP_NS.
HIPGO_DEV void sleep_ms(int ms, const volatile int *flag) {
  unsigned long long limit = ms >= 0 ? (unsigned long long)ms * 1000000ull : SPIN_CAP_NS;
  if (limit > SPIN_CAP_NS)
    limit = SPIN_CAP_NS;
  unsigned long long start = now_ns();
  while (now_ns() - start < limit) {
    if (ms < 0 && flag && *flag != 0)
      return;
    __nvvm_nanosleep(1000);
  }
}

// reliability_spin runs ms milliseconds (ms < 0: until *done is set by
// someone else, at most SPIN_CAP_NS), then sets *done = 1.
HIPGO_KERNEL void reliability_spin(int *done, int ms) {
  sleep_ms(ms, done);
  if (done && first_item())
    *(volatile int *)done = 1;
}

// reliability_panic traps: the GPU's form of a kernel that fails.
HIPGO_KERNEL void reliability_panic(int code) {
  (void)code;
  __builtin_trap();
}

// reliability_overrun writes v to x[0:n+extra], past the buffer's end
// when extra > 0.
HIPGO_KERNEL void reliability_overrun(unsigned *x, int n, int extra, unsigned v) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n + extra; i += stride)
    x[i] = v;
}

// reliability_axpb sets x[i] = x[i]*a + b for i < n.
HIPGO_KERNEL void reliability_axpb(unsigned *x, unsigned a, unsigned b, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = x[i] * a + b;
}

// reliability_add sets dst[i] += src[i] for i < n.
HIPGO_KERNEL void reliability_add(unsigned *dst, unsigned *src, int n) {
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    dst[i] += src[i];
}

// reliability_store sleeps ms milliseconds, then sets x[i] = v (one
// work-item).
HIPGO_KERNEL void reliability_store(unsigned *x, int i, unsigned v, int ms, int dummy) {
  (void)dummy;
  if (!first_item())
    return;
  sleep_ms(ms < 0 ? 0 : ms, 0);
  *(volatile unsigned *)&x[i] = v;
}

// reliability_move sets x[dst] = x[src] (one work-item).
HIPGO_KERNEL void reliability_move(unsigned *x, int dst, int src) {
  if (first_item())
    x[dst] = x[src];
}
