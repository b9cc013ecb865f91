// Element-wise kernels: one work-item per element, i = blockIdx.x*blockDim.x +
// threadIdx.x, guarded by i < n so the grid may overhang the data.
#include "hipgo.h"

// empty does nothing: the launch-latency benchmarks dispatch it.
HIPGO_KERNEL void empty() {}

// vector_add: c[i] = a[i] + b[i].
HIPGO_KERNEL void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// saxpy: y[i] = alpha*x[i] + y[i].
HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}

// fill_f32: p[i] = value.
HIPGO_KERNEL void fill_f32(float *p, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = value;
}
