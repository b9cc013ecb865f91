// sgemm: C = alpha*A*B + beta*C, row-major, A is MxK, B is KxN, C is MxN.
#include "hipgo.h"

#define GEMM_TILE 16

// Launch with block (16, 16) and grid (ceil(N/16), ceil(M/16)); each thread
// computes one element of C from 16x16 tiles of A and B staged in shared
// memory. Out-of-range tile entries are loaded as zero.
__launch_bounds__(GEMM_TILE * GEMM_TILE)
HIPGO_KERNEL void sgemm(int M, int N, int K, float alpha, const float *A,
                        const float *B, float beta, float *C) {
  __shared__ float As[GEMM_TILE][GEMM_TILE];
  __shared__ float Bs[GEMM_TILE][GEMM_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * GEMM_TILE + ty;
  int col = blockIdx.x * GEMM_TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
    int ka = k0 + tx, kb = k0 + ty;
    As[ty][tx] = (row < M && ka < K) ? A[(long)row * K + ka] : 0.0f;
    Bs[ty][tx] = (kb < K && col < N) ? B[(long)kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < GEMM_TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[(long)row * N + col] = alpha * acc + beta * C[(long)row * N + col];
}
