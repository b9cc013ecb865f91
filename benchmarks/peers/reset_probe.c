// reset_probe.c: what it takes, on the CUDA driver API, to use a device
// again after a kernel faults its primary context (the facts behind
// rocr/drivers/cuda's Device.Reset). Mode 1: release, reset, retain on
// the faulting thread with no context current. Mode 2: the same while
// another thread keeps the old context current. Mode 3: reset without a
// release. Mode 4: the same as 2, with that thread's streams alive.
//
//   nvcc -O2 -o reset_probe reset_probe.c -lcuda -lpthread && for m in 1 2 3 4; do ./reset_probe $m; done
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char* ptx =
    ".version 7.8\n.target sm_80\n.address_size 64\n"
    ".visible .entry fault()\n{\n .reg .b64 %rd<2>;\n .reg .b32 %r<2>;\n"
    " mov.u64 %rd1, 16;\n mov.u32 %r1, 1;\n st.global.u32 [%rd1], %r1;\n ret;\n}\n";

static CUcontext ctx;
static CUdevice dev;
static volatile int stop;

static const char* name(CUresult r) {
  const char* s = "?";
  cuGetErrorName(r, &s);
  return s;
}

static void* holder(void* arg) {
  cuCtxSetCurrent(ctx);
  CUstream s;
  if (arg) cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  while (!stop) usleep(1000);
  return NULL;
}

int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 1;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  pthread_t th;
  if (mode == 2 || mode == 4) pthread_create(&th, NULL, holder, mode == 4 ? (void*)1 : NULL);
  usleep(20000);
  CUmodule m;
  CUfunction f;
  printf("mode %d: load %s", mode, name(cuModuleLoadData(&m, ptx)));
  cuModuleGetFunction(&f, m, "fault");
  printf(", launch %s", name(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, NULL, NULL)));
  printf(", sync %s\n", name(cuCtxSynchronize()));
  cuCtxSetCurrent(NULL);
  if (mode != 3) printf("  release %s\n", name(cuDevicePrimaryCtxRelease(dev)));
  printf("  reset %s\n", name(cuDevicePrimaryCtxReset(dev)));
  CUcontext c2 = 0;
  printf("  retain %s (same context: %d)\n", name(cuDevicePrimaryCtxRetain(&c2, dev)), c2 == ctx);
  printf("  set current %s\n", name(cuCtxSetCurrent(c2)));
  CUdeviceptr p;
  printf("  alloc %s\n", name(cuMemAlloc(&p, 4096)));
  CUresult r = cuModuleLoadData(&m, ptx);
  printf("  load again %s, memset %s, sync %s\n", name(r), name(cuMemsetD32(p, 7, 1024)), name(cuCtxSynchronize()));
  stop = 1;
  if (mode == 2 || mode == 4) pthread_join(th, NULL);
  return 0;
}
