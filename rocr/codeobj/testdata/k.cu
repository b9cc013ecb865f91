// Tiny CUDA kernels for rocr/codeobj PTX fixtures; built without a CUDA SDK.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) c[i] = a[i] + b[i];
}

struct S { double x; char y[12]; };

extern "C" __global__ void __launch_bounds__(256) scale(float *p, S s, char c) {
  extern __shared__ float lds[];
  int i = __nvvm_read_ptx_sreg_tid_x();
  lds[i] = p[i] * (float)s.x + c;
  p[i] = lds[i ^ 1];
}
