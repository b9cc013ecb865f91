// native_multi_gpu.c: the peer of benchmarks' BenchmarkMultiPeerCopy and
// BenchmarkMultiDependency on two GPUs, with CUDA's own peer calls:
//
//   peer copy:   cuCtxEnablePeerAccess (GPU 1 -> GPU 0's memory), then
//                cuMemcpyPeerAsync(GPU 1 buffer, GPU 0 buffer) on a stream of
//                GPU 1 and cuStreamSynchronize, 1 MiB to 256 MiB;
//   dependency:  the empty kernel on GPU 0, cuEventRecord there,
//                cuStreamWaitEvent on GPU 1's stream, the empty kernel on
//                GPU 1, cuStreamSynchronize.
//
// It declares the few driver API entry points it uses itself, so it needs
// no CUDA headers, only libcuda. Build and run on the two-GPU machine:
//
//   nvcc -O2 -o native_multi native_multi_gpu.c -lcuda   (or gcc ... -lcuda)
//   ./native_multi kernels_sm90.ptx [count]
//
// Prints Go benchmark lines with the suite's names and impl=native
// (BenchmarkMultiPeerCopy/impl=native/size=1MiB N ns/op MB/s), after a
// hipgo-driver configuration line, so benchmarks/report pairs them with
// hipgo's.
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The CUDA driver API, as cuda.h declares it (the _v2 names are what
// cuda.h's macros resolve to).
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DISABLE_TIMING 0x2

CUresult cuInit(unsigned int flags);
CUresult cuGetErrorName(CUresult error, const char** str);
CUresult cuDeviceGetCount(int* count);
CUresult cuDeviceGet(CUdevice* device, int ordinal);
CUresult cuDeviceGetName(char* name, int len, CUdevice dev);
CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev);
CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int flags);
CUresult cuModuleLoadData(CUmodule* module, const void* image);
CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name);
CUresult cuStreamCreate(CUstream* phStream, unsigned int flags);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int flags);
CUresult cuEventCreate(CUevent* phEvent, unsigned int flags);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount);
CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                        unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                        unsigned int sharedMemBytes, CUstream hStream, void** kernelParams, void** extra);

#define CK(x)                                                          \
  do {                                                                 \
    CUresult r_ = (x);                                                 \
    if (r_ != CUDA_SUCCESS) {                                          \
      const char* s_ = "?";                                            \
      cuGetErrorName(r_, &s_);                                         \
      fprintf(stderr, "%s:%d: %s: %s (%d)\n", __FILE__, __LINE__, #x, \
              s_ ? s_ : "?", r_);                                      \
      exit(1);                                                         \
    }                                                                  \
  } while (0)

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static CUcontext ctx[2];
static CUfunction empty[2];
static CUstream stream[2];
static CUevent ev;
static CUdeviceptr src, dst;  // src on GPU 0, dst on GPU 1
static size_t copy_bytes;

static void peer_copy(int iters) {
  CK(cuCtxSetCurrent(ctx[1]));
  for (int i = 0; i < iters; i++) {
    CK(cuMemcpyPeerAsync(dst, ctx[1], src, ctx[0], copy_bytes, stream[1]));
    CK(cuStreamSynchronize(stream[1]));
  }
}

static void dependency(int iters) {
  for (int i = 0; i < iters; i++) {
    CK(cuCtxSetCurrent(ctx[0]));
    CK(cuLaunchKernel(empty[0], 1, 1, 1, 1, 1, 1, 0, stream[0], NULL, NULL));
    CK(cuEventRecord(ev, stream[0]));
    CK(cuCtxSetCurrent(ctx[1]));
    CK(cuStreamWaitEvent(stream[1], ev, 0));
    CK(cuLaunchKernel(empty[1], 1, 1, 1, 1, 1, 1, 0, stream[1], NULL, NULL));
    CK(cuStreamSynchronize(stream[1]));
  }
}

// bench runs f once to warm up, then times iters calls.
static void bench(const char* name, void (*f)(int), int iters, double bytes) {
  f(iters / 10 + 1);
  double t0 = now_ns();
  f(iters);
  double ns = (now_ns() - t0) / iters;
  if (bytes > 0)
    printf("Benchmark%s\t%d\t%.1f ns/op\t%.2f MB/s\n", name, iters, ns, bytes / ns * 1e3);
  else
    printf("Benchmark%s\t%d\t%.1f ns/op\n", name, iters, ns);
  fflush(stdout);
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* p = malloc(len + 1);
  if (!p || fread(p, 1, len, f) != (size_t)len) {
    fprintf(stderr, "%s: short read\n", path);
    exit(1);
  }
  p[len] = 0;
  fclose(f);
  return p;
}

static unsigned char pattern_byte(size_t i) { return (unsigned char)(i * 7); }

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s kernels.ptx [count]\n", argv[0]);
    return 2;
  }
  int count = argc > 2 ? atoi(argv[2]) : 5;
  char* ptx = read_file(argv[1]);

  int n = 0;
  CK(cuInit(0));
  CK(cuDeviceGetCount(&n));
  if (n < 2) {
    fprintf(stderr, "native_multi: %d GPU(s); two are needed\n", n);
    return 1;
  }
  CUdevice dev[2];
  char name[256] = {0};
  for (int i = 0; i < 2; i++) {
    CUmodule mod;
    CK(cuDeviceGet(&dev[i], i));
    CK(cuDevicePrimaryCtxRetain(&ctx[i], dev[i]));
    CK(cuCtxSetCurrent(ctx[i]));
    CK(cuModuleLoadData(&mod, ptx));
    CK(cuModuleGetFunction(&empty[i], mod, "empty"));
    CK(cuStreamCreate(&stream[i], CU_STREAM_NON_BLOCKING));
  }
  CK(cuDeviceGetName(name, sizeof name - 1, dev[0]));
  int can = 0;
  CK(cuDeviceCanAccessPeer(&can, dev[1], dev[0]));
  if (!can) {
    fprintf(stderr, "native_multi: GPU 1 cannot access GPU 0's memory\n");
    return 1;
  }
  // As hipgo's benchmark: GPU 1 gets access to GPU 0's memory.
  CK(cuCtxSetCurrent(ctx[1]));
  CUresult r = cuCtxEnablePeerAccess(ctx[0], 0);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) CK(r);
  CK(cuCtxSetCurrent(ctx[0]));
  CK(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));

  printf("hipgo-driver: cuda\nhipgo-device: %s\nhipgo-peer: native_multi_gpu.c\n", name);
  const size_t max_bytes = (size_t)256 << 20;
  unsigned char* host = malloc(max_bytes);
  if (!host) return 1;
  for (size_t i = 0; i < max_bytes; i++) host[i] = pattern_byte(i);
  CK(cuCtxSetCurrent(ctx[0]));
  CK(cuMemAlloc_v2(&src, max_bytes));
  CK(cuMemcpyHtoD_v2(src, host, max_bytes));
  CK(cuCtxSetCurrent(ctx[1]));
  CK(cuMemAlloc_v2(&dst, max_bytes));

  static const int sizes_mib[] = {1, 4, 16, 64, 256};
  for (int rep = 0; rep < count; rep++) {
    for (size_t k = 0; k < sizeof sizes_mib / sizeof sizes_mib[0]; k++) {
      char label[96];
      copy_bytes = (size_t)sizes_mib[k] << 20;
      int iters = (int)(((size_t)8 << 30) / copy_bytes);
      if (iters < 20) iters = 20;
      snprintf(label, sizeof label, "MultiPeerCopy/impl=native/size=%dMiB", sizes_mib[k]);
      bench(label, peer_copy, iters, (double)copy_bytes);
    }
    bench("MultiDependency/impl=native", dependency, 20000, 0);
  }

  // The last copy was of all 256 MiB: check what arrived on GPU 1.
  CK(cuCtxSetCurrent(ctx[1]));
  memset(host, 0, max_bytes);
  CK(cuMemcpyDtoH_v2(host, dst, max_bytes));
  size_t probe[] = {0, 1, max_bytes / 2, max_bytes - 1};
  for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
    if (host[probe[k]] != pattern_byte(probe[k])) {
      fprintf(stderr, "peer copy: byte %zu = %d, want %d\n", probe[k], host[probe[k]], pattern_byte(probe[k]));
      return 1;
    }
  }
  return 0;
}
