// Kernels with parameters past 16 KiB (testdata/nv/gen.sh).
struct blob { unsigned int v[8000]; };
extern "C" __global__ void echo_blob(blob b, unsigned int* out) {
  for (int i = threadIdx.x; i < 8000; i += blockDim.x) out[i] = b.v[i];
}
struct small { unsigned int v[1000]; };
extern "C" __global__ void echo_small(small b, unsigned int* out) {
  for (int i = threadIdx.x; i < 1000; i += blockDim.x) out[i] = b.v[i];
}
struct mid { unsigned int v[5000]; };
extern "C" __global__ void echo_mid(int a, mid b, unsigned int* out) {
  for (int i = threadIdx.x; i < 5000; i += blockDim.x) out[i] = b.v[i]+a;
}
