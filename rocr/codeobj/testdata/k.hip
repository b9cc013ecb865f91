// Tiny HIP kernels for rocr/codeobj fixtures; built without a HIP SDK.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#ifndef __HIP_DEVICE_COMPILE__
struct dim3 { unsigned x, y, z; };
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *);
#endif

extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() +
          __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

struct S { double x; char y[12]; };

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, 256)))
void scale(float *p, S s, char c) {
  extern __shared__ float lds[];
  int i = __builtin_amdgcn_workitem_id_x();
  lds[i] = p[i] * (float)s.x + c;
  p[i] = lds[i ^ 1];
}

// Reads the whole implicit argument area so every hidden argument stays.
extern "C" __global__ void hidden(unsigned long *out) {
  const unsigned long *p = (const unsigned long *)__builtin_amdgcn_implicitarg_ptr();
  for (int j = 0; j < 32; j++) out[j] = p[j];
}
