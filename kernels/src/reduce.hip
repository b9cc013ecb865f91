// reduce_sum: the first pass of a sum. Each work-group writes one partial sum.
#include "hipgo.h"

// Each thread first sums a grid-stride slice of in, then the block reduces its
// blockDim.x values in dynamic shared memory (blockDim.x floats, given at
// launch) with a tree, and thread 0 writes partial[blockIdx.x].
// blockDim.x must be a power of two no larger than 1024.
HIPGO_KERNEL void reduce_sum(const float *in, float *partial, int n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x;
  unsigned stride = gridDim.x * blockDim.x;
  float sum = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < (unsigned)n; i += stride)
    sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sdata[0];
}
