// poly.hip: this example's kernel, written as a HIP programmer writes one.
// hipgo.h stands in for the HIP/CUDA headers so that clang compiles it for
// AMD and NVIDIA GPUs without a ROCm or CUDA SDK; with hipcc or nvcc,
// include <hip/hip_runtime.h> instead and drop HIPGO_KERNEL for
// extern "C" __global__.
#include "hipgo.h"

// poly3: y[i] = ((a*x + b)*x + c)*x + d, a cubic by Horner's rule.
HIPGO_KERNEL void poly3(const float *x, float *y, float a, float b, float c, float d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = ((a * v + b) * v + c) * v + d;
  }
}
