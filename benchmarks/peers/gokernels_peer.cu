// gokernels_peer.cu: the algorithms of benchmarks/gokernels written in
// CUDA C++ as NVIDIA's samples write them, built by nvcc and timed by CUDA
// events, so each Go kernel's time has its nvcc peer in the same run.
//
//   nvcc -O3 -arch=sm_90 -o /tmp/gokernels_peer gokernels_peer.cu
//   /tmp/gokernels_peer [runs]
//
// Each line: name, median kernel time in microseconds over runs (default
// 5) of 20 launches each, and a check of the result.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <int BLOCK_SIZE>
__global__ void matrix_mul(float *C, const float *A, const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

template <class T>
__global__ void reduce(const T *in, T *out, long long n) {
  extern __shared__ unsigned char smem[];
  T *sdata = (T *)smem;
  long long tid = threadIdx.x, bs = blockDim.x;
  T sum = 0;
  for (long long i = blockIdx.x * bs * 2 + tid; i < n; i += bs * 2 * gridDim.x) {
    sum += in[i];
    if (i + bs < n) sum += in[i + bs];
  }
  sdata[tid] = sum;
  __syncthreads();
  for (long long s = bs / 2; s >= 2 * warpSize; s >>= 1) {
    if (tid < s) sdata[tid] = sum = sum + sdata[tid + s];
    __syncthreads();
  }
  if (tid < warpSize) {
    sum += sdata[tid + warpSize];
    for (int off = warpSize / 2; off > 0; off >>= 1) sum += __shfl_down_sync(0xffffffff, sum, off);
    if (tid == 0) out[blockIdx.x] = sum;
  }
}

__global__ void histogram256(const unsigned char *data, long long n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i]) atomicAdd(&bins[i], local[i]);
}

__global__ void transpose(float *out, const float *in, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void scan_block(int *data, long long n, int *sums) {
  __shared__ int warpSums[32];
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int tid = threadIdx.x, lane = tid % warpSize, warp = tid / warpSize;
  int v = i < n ? data[i] : 0;
  for (int d = 1; d < warpSize; d <<= 1) {
    int m = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v += m;
  }
  if (lane == warpSize - 1) warpSums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nw = blockDim.x / warpSize;
    int s = lane < nw ? warpSums[lane] : 0;
    for (int d = 1; d < warpSize; d <<= 1) {
      int m = __shfl_up_sync(0xffffffff, s, d);
      if (lane >= d) s += m;
    }
    if (lane < nw) warpSums[lane] = s;
  }
  __syncthreads();
  if (warp > 0) v += warpSums[warp - 1];
  if (i < n) data[i] = v;
  if (tid == blockDim.x - 1) sums[blockIdx.x] = v;
}

static int runs = 5;

// timeit returns the median over runs of the mean kernel time of 20 launches, in microseconds.
template <class F> static double timeit(F launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < runs; r++) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < 20; i++) launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0 / 20);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  if (argc > 1) runs = atoi(argv[1]);
  // vector add, 2^26 floats
  {
    long long n = 1LL << 26;
    float *a, *b, *c;
    CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&c, n * 4));
    CK(cudaMemset(a, 0, n * 4)); CK(cudaMemset(b, 0, n * 4));
    double us = timeit([&] { vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n); });
    printf("vector_add %.3f us %.1f GB/s\n", us, 3.0 * n * 4 / us / 1e3);
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
  // matrix multiply, 2048 x 2048
  {
    int n = 2048;
    float *a, *b, *c;
    CK(cudaMalloc(&a, (size_t)n * n * 4)); CK(cudaMalloc(&b, (size_t)n * n * 4)); CK(cudaMalloc(&c, (size_t)n * n * 4));
    std::vector<float> h((size_t)n * n, 1.0f);
    CK(cudaMemcpy(a, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    double us16 = timeit([&] { matrix_mul<16><<<dim3(n / 16, n / 16), dim3(16, 16)>>>(c, a, b, n, n); });
    double us32 = timeit([&] { matrix_mul<32><<<dim3(n / 32, n / 32), dim3(32, 32)>>>(c, a, b, n, n); });
    CK(cudaMemcpy(h.data(), c, 4, cudaMemcpyDeviceToHost));
    printf("matrix_mul16 %.3f us %.1f GFLOP/s check %g\n", us16, 2.0 * n * n * n / us16 / 1e3, h[0]);
    printf("matrix_mul32 %.3f us %.1f GFLOP/s\n", us32, 2.0 * n * n * n / us32 / 1e3);
    cudaFree(a); cudaFree(b); cudaFree(c);
  }
  // reduction, 2^24 floats, 256 threads, 2048 blocks
  {
    long long n = 1LL << 24;
    float *in, *out;
    CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, 2048 * 4));
    std::vector<float> h(n, 1.0f);
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    double us = timeit([&] { reduce<float><<<2048, 256, 256 * 4>>>(in, out, n); });
    printf("reduce_f32 %.3f us %.1f GB/s\n", us, n * 4.0 / us / 1e3);
    cudaFree(in); cudaFree(out);
  }
  // histogram, 64 MiB of bytes, 1024 blocks of 256
  {
    long long n = 64LL << 20;
    unsigned char *d;
    unsigned *bins;
    CK(cudaMalloc(&d, n)); CK(cudaMalloc(&bins, 256 * 4));
    std::vector<unsigned char> h(n);
    for (long long i = 0; i < n; i++) h[i] = (unsigned char)(i * 2654435761u >> 13);
    CK(cudaMemcpy(d, h.data(), n, cudaMemcpyHostToDevice));
    double us = timeit([&] { histogram256<<<1024, 256>>>(d, n, bins); });
    printf("histogram256 %.3f us %.1f GB/s\n", us, n / us / 1e3);
    cudaFree(d); cudaFree(bins);
  }
  // transpose, 4096 x 4096
  {
    int n = 4096;
    float *in, *out;
    CK(cudaMalloc(&in, (size_t)n * n * 4)); CK(cudaMalloc(&out, (size_t)n * n * 4));
    double us = timeit([&] { transpose<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(out, in, n, n); });
    printf("transpose %.3f us %.1f GB/s\n", us, 2.0 * n * n * 4 / us / 1e3);
    cudaFree(in); cudaFree(out);
  }
  // scan, 2^24 ints, blocks of 256
  {
    long long n = 1LL << 24;
    int *d, *sums;
    CK(cudaMalloc(&d, n * 4)); CK(cudaMalloc(&sums, (n / 256) * 4));
    CK(cudaMemset(d, 0, n * 4));
    double us = timeit([&] { scan_block<<<n / 256, 256>>>(d, n, sums); });
    printf("scan_block %.3f us %.1f GB/s\n", us, 2.0 * n * 4 / us / 1e3);
    cudaFree(d); cudaFree(sums);
  }
  return 0;
}
