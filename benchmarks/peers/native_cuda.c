// native_cuda.c: the peer of rocr/drivers/cuda's BenchmarkCUDA, on the CUDA
// driver API, loading the same PTX file. Build and run on the GPU machine:
//
//   nvcc -O2 -o native native_cuda.c -lcuda && ./native kernels_sm90.ptx [count]
//
// Prints Go benchmark lines (BenchmarkNative/<metric> N ns/op [MB/s]).
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x)                                                              \
  do {                                                                     \
    CUresult r_ = (x);                                                     \
    if (r_ != CUDA_SUCCESS) {                                              \
      const char* s_ = "?";                                                \
      cuGetErrorName(r_, &s_);                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, s_);     \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static CUfunction empty, vadd;
static CUstream s1, s2;
static CUevent ev;
static CUdeviceptr a, b, c;
static int n = 1 << 26;

static void launch_empty(CUstream s) { CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL)); }

static void launch_sync(int iters) {
  for (int i = 0; i < iters; i++) {
    launch_empty(s1);
    CK(cuStreamSynchronize(s1));
  }
}

static void launch_async(int iters) {
  for (int i = 0; i < iters; i++) launch_empty(s1);
  CK(cuStreamSynchronize(s1));
}

static void cross_queue(int iters) {
  for (int i = 0; i < iters; i++) {
    launch_empty(s1);
    CK(cuEventRecord(ev, s1));
    CK(cuStreamWaitEvent(s2, ev, 0));
    launch_empty(s2);
    CK(cuStreamSynchronize(s2));
  }
}

static void vector_add(int iters) {
  void* args[] = {&a, &b, &c, &n};
  for (int i = 0; i < iters; i++) {
    CK(cuLaunchKernel(vadd, n / 256, 1, 1, 256, 1, 1, 0, s1, args, NULL));
    CK(cuStreamSynchronize(s1));
  }
}

// The peer of gpu/graph's BenchmarkChain100: 100 empty kernels launched
// directly, and the same chain captured once into a CUDA graph and
// launched with one call; each followed by a synchronize.
static CUgraphExec chain_exec;

static void chain100_direct(int iters) {
  for (int i = 0; i < iters; i++) {
    for (int k = 0; k < 100; k++) launch_empty(s1);
    CK(cuStreamSynchronize(s1));
  }
}

static void chain100_graph(int iters) {
  for (int i = 0; i < iters; i++) {
    CK(cuGraphLaunch(chain_exec, s1));
    CK(cuStreamSynchronize(s1));
  }
}

static void chain100_instantiate(int iters) {
  for (int i = 0; i < iters; i++) {
    CUgraph g;
    CUgraphExec x;
    CK(cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_RELAXED));
    for (int k = 0; k < 100; k++) launch_empty(s2);
    CK(cuStreamEndCapture(s2, &g));
    CK(cuGraphInstantiateWithFlags(&x, g, 0));
    CK(cuGraphDestroy(g));
    CK(cuGraphExecDestroy(x));
  }
}

// vector_add back to back, timed by CUDA events: the GPU's own time per
// kernel, the peer of gputest.Benchmark's gpu-ns/op.
static void vector_add_events(int count) {
  void* args[] = {&a, &b, &c, &n};
  CUevent e0, e1;
  CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  for (int r = 0; r < count; r++) {
    int iters = 200;
    CK(cuLaunchKernel(vadd, n / 256, 1, 1, 256, 1, 1, 0, s1, args, NULL));  // warm up
    CK(cuEventRecord(e0, s1));
    for (int i = 0; i < iters; i++) CK(cuLaunchKernel(vadd, n / 256, 1, 1, 256, 1, 1, 0, s1, args, NULL));
    CK(cuEventRecord(e1, s1));
    CK(cuEventSynchronize(e1));
    float ms;
    CK(cuEventElapsedTime(&ms, e0, e1));
    double ns = ms * 1e6 / iters;
    printf("BenchmarkNative/vector_add_events\t%d\t%.1f gpu-ns/op\t%.1f GB/s\n", iters, ns, 12.0 * n / ns);
    fflush(stdout);
  }
  CK(cuEventDestroy(e0));
  CK(cuEventDestroy(e1));
}

// 4 KiB stream-ordered allocate + free from the device's default pool:
// the peer of gpu/buffer's BenchmarkAlloc4K/NewAsync+FreeAsync.
static void alloc_async_4k(int iters) {
  for (int i = 0; i < iters; i++) {
    CUdeviceptr p;
    CK(cuMemAllocAsync(&p, 4096, s1));
    CK(cuMemFreeAsync(p, s1));
  }
  CK(cuStreamSynchronize(s1));
}

// An 8192x8192 float32 sub-matrix between two pitched allocations
// (columns 32.. of the source), back to back, event-timed: the peer of
// gpu/stream's BenchmarkCopy2D/pitched. Bytes are read plus written.
static void memcpy2d_events(int count) {
  const size_t w = 8192, h = 8192;
  CUdeviceptr src, dst;
  size_t sp, dp;
  CK(cuMemAllocPitch(&src, &sp, (w + 64) * 4, h, 4));
  CK(cuMemAllocPitch(&dst, &dp, (w + 64) * 4, h, 4));
  CUDA_MEMCPY2D m = {0};
  m.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  m.srcDevice = src;
  m.srcXInBytes = 32 * 4;
  m.srcPitch = sp;
  m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  m.dstDevice = dst;
  m.dstPitch = dp;
  m.WidthInBytes = w * 4;
  m.Height = h;
  CUevent e0, e1;
  CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
  CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  CK(cuMemcpy2DAsync(&m, s1));
  for (int r = 0; r < count; r++) {
    int iters = 50;
    CK(cuEventRecord(e0, s1));
    for (int i = 0; i < iters; i++) CK(cuMemcpy2DAsync(&m, s1));
    CK(cuEventRecord(e1, s1));
    CK(cuEventSynchronize(e1));
    float ms;
    CK(cuEventElapsedTime(&ms, e0, e1));
    double ns = ms * 1e6 / iters;
    printf("BenchmarkNative/memcpy2d_8192\t%d\t%.1f gpu-ns/op\t%.1f GB/s\n", iters, ns, 2.0 * 4 * w * h / ns);
    fflush(stdout);
  }
  CK(cuEventDestroy(e0));
  CK(cuEventDestroy(e1));
  CK(cuMemFree(src));
  CK(cuMemFree(dst));
}

static void bench(const char* name, void (*f)(int), int iters, double bytes) {
  f(iters / 10 + 1);  // warm up
  double t0 = now_ns();
  f(iters);
  double ns = (now_ns() - t0) / iters;
  if (bytes > 0)
    printf("BenchmarkNative/%s\t%d\t%.1f ns/op\t%.2f MB/s\n", name, iters, ns, bytes / ns * 1e3);
  else
    printf("BenchmarkNative/%s\t%d\t%.1f ns/op\n", name, iters, ns);
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s kernels.ptx [count]\n", argv[0]);
    return 2;
  }
  int count = argc > 2 ? atoi(argv[2]) : 5;
  FILE* f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* ptx = malloc(len + 1);
  if (fread(ptx, 1, len, f) != (size_t)len) return 1;
  ptx[len] = 0;
  fclose(f);

  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CK(cuInit(0));
  CK(cuDeviceGet(&dev, 0));
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CK(cuModuleLoadData(&mod, ptx));
  CK(cuModuleGetFunction(&empty, mod, "empty"));
  CK(cuModuleGetFunction(&vadd, mod, "vector_add"));
  CK(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
  CK(cuMemAlloc(&a, 4ull * n));
  CK(cuMemAlloc(&b, 4ull * n));
  CK(cuMemAlloc(&c, 4ull * n));
  CK(cuMemsetD32(a, 0x3f800000, n));
  CK(cuMemsetD32(b, 0x40000000, n));

  {
    CUgraph g;
    CK(cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_RELAXED));
    for (int k = 0; k < 100; k++) launch_empty(s2);
    CK(cuStreamEndCapture(s2, &g));
    CK(cuGraphInstantiateWithFlags(&chain_exec, g, 0));
    CK(cuGraphDestroy(g));
  }
  if (getenv("CHAIN_ONLY")) {
    vector_add_events(count);
    memcpy2d_events(count);
    for (int r = 0; r < count; r++) bench("alloc_async_4k", alloc_async_4k, 100000, 0);
  }
  for (int r = 0; r < count; r++) {
    bench("chain100_direct", chain100_direct, 1000, 0);
    bench("chain100_graph", chain100_graph, 2000, 0);
    bench("chain100_instantiate", chain100_instantiate, 200, 0);
  }
  for (int r = 0; r < count && !getenv("CHAIN_ONLY"); r++) {
    bench("launch_sync", launch_sync, 20000, 0);
    bench("launch_async", launch_async, 100000, 0);
    bench("cross_queue", cross_queue, 20000, 0);
    bench("vector_add", vector_add, 300, 12.0 * n);
  }
  float host;
  CK(cuMemcpyDtoH(&host, c + 4ull * (n - 1), 4));
  if (host != 3.0f) {
    fprintf(stderr, "vector_add: c[n-1] = %f, want 3\n", host);
    return 1;
  }
  return 0;
}
