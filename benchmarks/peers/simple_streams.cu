// simple_streams.cu: CUDA's simpleStreams pattern, native, as the peer of
// gpu/rtc's BenchmarkSimpleStreamsGPU in the same run: a kernel over 16 Mi
// ints, then their copy to pinned host memory, on one stream and split in
// four quarters on four streams. It prints benchmark lines, a round each:
//   BenchmarkSimpleStreamsNative/one  <reps>  <ns> ns/op
// Build: nvcc -O3 -arch=sm_90 -o simple_streams simple_streams.cu
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cuda_runtime.h>

extern "C" __global__ void init_array(int* x, int factor, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iters; k++) x[i] += factor;
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

int main(int argc, char** argv) {
  const int n = 16 << 20, iters = 5, block = 512;
  int rounds = argc > 1 ? atoi(argv[1]) : 5, reps = 200;
  int *d, *h;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMallocHost(&h, n * sizeof(int)));
  cudaStream_t ss[4];
  for (auto& s : ss) CHECK(cudaStreamCreate(&s));
  for (int split : {1, 4}) {
    int q = n / split;
    for (int r = 0; r < rounds; r++) {
      CHECK(cudaMemset(d, 0, n * sizeof(int)));
      CHECK(cudaDeviceSynchronize());
      auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < reps; k++) {
        for (int i = 0; i < split; i++) {
          init_array<<<q / block, block, 0, ss[i]>>>(d + i * q, 1, iters);
          CHECK(cudaMemcpyAsync(h + i * q, d + i * q, q * sizeof(int), cudaMemcpyDeviceToHost, ss[i]));
        }
        for (int i = 0; i < split; i++) CHECK(cudaStreamSynchronize(ss[i]));
      }
      double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / reps;
      if (h[n - 1] != iters * reps) { fprintf(stderr, "x[n-1] = %d, want %d\n", h[n - 1], iters * reps); return 1; }
      printf("BenchmarkSimpleStreamsNative/%s \t %d\t %.0f ns/op\n", split == 1 ? "one" : "streams", reps, ns);
    }
  }
  return 0;
}
