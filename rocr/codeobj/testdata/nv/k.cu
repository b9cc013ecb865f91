// Kernels for checking hipgo's cubin and fatbin reading against cuobjdump.
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void mixed(char c, double d, long long l, short s, float* out) {
  out[threadIdx.x] = (float)(c + d + l + s);
}

extern "C" __global__ void reverse_dyn(float* d, int n) {
  extern __shared__ float s[];
  int t = threadIdx.x;
  if (t < n) s[t] = d[t];
  __syncthreads();
  if (t < n) d[t] = s[n - 1 - t];
}

extern "C" __global__ void static_shared(float* d) {
  __shared__ float s[64];
  s[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  d[threadIdx.x] = s[63 - threadIdx.x];
}

extern "C" __global__ void __launch_bounds__(256) bounded(int* p) { p[threadIdx.x] = 1; }

template <typename T> __global__ void scale(T* p, T f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= f;
}
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);

// A struct passed by value: 16 bytes aligned to 8 (.align 8 .b8 [16] in PTX).
struct Pair {
  float x;
  double y;
};
extern "C" __global__ void pair_axpy(double* out, Pair p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p.x * i + p.y;
}
