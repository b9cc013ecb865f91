// prims_cub.cu: the primitives of gpu/prim through the toolkit's CUB,
// built by nvcc and timed by CUDA events, so each hipgo primitive has its
// CUB time from the same run.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o /tmp/prims_cub prims_cub.cu
//   /tmp/prims_cub [runs] [maxlog2]
//
// Each line: "cub <primitive> <type> <n> <us>", the median over runs
// (default 5) of the mean time of 20 calls between two events; the
// temporary storage is allocated once, outside the timed calls, as CUB
// users do. A line "check ..." follows each primitive's first size.
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda/std/tuple>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <string>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

static int RUNS = 5;
static const int REPS = 20;

template <class F>
static double timeit(F f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaDeviceSynchronize());
  std::vector<double> t;
  for (int r = 0; r < RUNS; r++) {
    CK(cudaEventRecord(a));
    for (int i = 0; i < REPS; i++) f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0 / REPS);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return t[t.size() / 2];
}

static void *tmp;
static size_t tmpBytes;
static void need(size_t n) {
  if (n > tmpBytes) {
    if (tmp) CK(cudaFree(tmp));
    CK(cudaMalloc(&tmp, n));
    tmpBytes = n;
  }
}

template <class T>
static T *randomBuf(size_t n, unsigned seed, bool small) {
  std::vector<T> h(n);
  srand(seed);
  for (size_t i = 0; i < n; i++) {
    if (small) h[i] = (T)(rand() % 7) - (T)3;
    else if (sizeof(T) == 8) h[i] = (T)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ rand());
    else h[i] = (T)(((uint64_t)rand() << 1) ^ rand());
  }
  T *d;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

static void line(const char *prim, const char *type, size_t n, double us) {
  printf("cub %s %s %zu %.2f\n", prim, type, n, us);
  fflush(stdout);
}

template <class T>
static void reduce(const char *type, size_t n) {
  T *in = randomBuf<T>(n, 1, true), *out;
  CK(cudaMalloc(&out, sizeof(T) * 2));
  size_t b = 0;
  CK(cub::DeviceReduce::Sum(nullptr, b, in, out, (int64_t)n));
  need(b);
  line("sum", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceReduce::Sum(tmp, bb, in, out, (int64_t)n); }));
  b = 0;
  CK(cub::DeviceReduce::Min(nullptr, b, in, out, (int64_t)n));
  need(b);
  line("min", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceReduce::Min(tmp, bb, in, out, (int64_t)n); }));
#if defined(CCCL_MAJOR_VERSION) && CCCL_MAJOR_VERSION >= 3
  // CCCL 3: the value and its index to two outputs.
  int64_t *idx;
  CK(cudaMalloc(&idx, sizeof(*idx)));
  b = 0;
  CK(cub::DeviceReduce::ArgMin(nullptr, b, in, out, idx, (int64_t)n));
  need(b);
  line("argmin", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceReduce::ArgMin(tmp, bb, in, out, idx, (int64_t)n); }));
  CK(cudaFree(idx));
#else
  cub::KeyValuePair<int, T> *kv;
  CK(cudaMalloc(&kv, sizeof(*kv)));
  b = 0;
  CK(cub::DeviceReduce::ArgMin(nullptr, b, in, kv, (int)n));
  need(b);
  line("argmin", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceReduce::ArgMin(tmp, bb, in, kv, (int)n); }));
  CK(cudaFree(kv));
#endif
  CK(cudaFree(in));
  CK(cudaFree(out));
}

template <class T>
static void scan(const char *type, size_t n) {
  T *in = randomBuf<T>(n, 2, true), *out;
  CK(cudaMalloc(&out, n * sizeof(T)));
  size_t b = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, b, in, out, (int64_t)n));
  need(b);
  line("inclusive_sum", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceScan::InclusiveSum(tmp, bb, in, out, (int64_t)n); }));
  b = 0;
  CK(cub::DeviceScan::ExclusiveSum(nullptr, b, in, out, (int64_t)n));
  need(b);
  line("exclusive_sum", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceScan::ExclusiveSum(tmp, bb, in, out, (int64_t)n); }));
  CK(cudaFree(in));
  CK(cudaFree(out));
}

template <class T>
static void transform(const char *type, size_t n) {
  T *x = randomBuf<T>(n, 3, true), *y = randomBuf<T>(n, 4, true), *z;
  CK(cudaMalloc(&z, n * sizeof(T)));
  line("add", type, n, timeit([&] {
    cub::DeviceTransform::Transform(cuda::std::make_tuple(x, y), z, (int64_t)n, cuda::std::plus<T>{});
  }));
  line("memcpy_d2d", type, n, timeit([&] { cudaMemcpyAsync(z, x, n * sizeof(T), cudaMemcpyDeviceToDevice); }));
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaFree(z));
}

template <class K>
static void sortKeys(const char *type, size_t n) {
  K *in = randomBuf<K>(n, 5, false), *out;
  CK(cudaMalloc(&out, n * sizeof(K)));
  size_t b = 0;
  CK(cub::DeviceRadixSort::SortKeys(nullptr, b, in, out, (int64_t)n));
  need(b);
  line("sort_keys", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceRadixSort::SortKeys(tmp, bb, in, out, (int64_t)n); }));
  CK(cudaFree(in));
  CK(cudaFree(out));
}

static void sortPairs(size_t n) {
  uint32_t *k = randomBuf<uint32_t>(n, 6, false), *v = randomBuf<uint32_t>(n, 7, false), *ko, *vo;
  CK(cudaMalloc(&ko, n * 4));
  CK(cudaMalloc(&vo, n * 4));
  size_t b = 0;
  CK(cub::DeviceRadixSort::SortPairs(nullptr, b, k, ko, v, vo, (int64_t)n));
  need(b);
  line("sort_pairs", "uint32-uint32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceRadixSort::SortPairs(tmp, bb, k, ko, v, vo, (int64_t)n); }));
  CK(cudaFree(k));
  CK(cudaFree(v));
  CK(cudaFree(ko));
  CK(cudaFree(vo));
}

// merge sort: cub::DeviceMergeSort's stable sorts with less-than, uint32
// and float32 keys, uint32/uint32 pairs.
template <class K>
static void mergeSortKeys(const char *type, size_t n) {
  K *in = randomBuf<K>(n, 13, false), *out;
  CK(cudaMalloc(&out, n * sizeof(K)));
  size_t b = 0;
  CK(cub::DeviceMergeSort::SortKeysCopy(nullptr, b, in, out, (int64_t)n, cuda::std::less<K>{}));
  need(b);
  line("merge_sort_keys", type, n, timeit([&] { size_t bb = tmpBytes; cub::DeviceMergeSort::SortKeysCopy(tmp, bb, in, out, (int64_t)n, cuda::std::less<K>{}); }));
  CK(cudaFree(in));
  CK(cudaFree(out));
}

static void mergeSortPairs(size_t n) {
  uint32_t *k = randomBuf<uint32_t>(n, 14, false), *v = randomBuf<uint32_t>(n, 15, false), *ko, *vo;
  CK(cudaMalloc(&ko, n * 4));
  CK(cudaMalloc(&vo, n * 4));
  size_t b = 0;
  CK(cub::DeviceMergeSort::SortPairsCopy(nullptr, b, k, v, ko, vo, (int64_t)n, cuda::std::less<uint32_t>{}));
  need(b);
  line("merge_sort_pairs", "uint32-uint32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceMergeSort::SortPairsCopy(tmp, bb, k, v, ko, vo, (int64_t)n, cuda::std::less<uint32_t>{}); }));
  CK(cudaFree(k));
  CK(cudaFree(v));
  CK(cudaFree(ko));
  CK(cudaFree(vo));
}

static void histogram(size_t n) {
  uint8_t *in = randomBuf<uint8_t>(n, 8, false);
  unsigned int *hist;
  CK(cudaMalloc(&hist, 256 * sizeof(unsigned int)));
  size_t b = 0;
  CK(cub::DeviceHistogram::HistogramEven(nullptr, b, in, hist, 257, 0, 256, (int64_t)n));
  need(b);
  line("histogram256", "uint8", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceHistogram::HistogramEven(tmp, bb, in, hist, 257, 0, 256, (int64_t)n); }));
  CK(cudaFree(in));
  CK(cudaFree(hist));
}

// segmented: float32 sums of segments of 1024 elements.
static void segmented(size_t n) {
  float *in = randomBuf<float>(n, 9, true), *out;
  size_t ns = n / 1024;
  std::vector<int64_t> ho(ns + 1);
  for (size_t i = 0; i <= ns; i++) ho[i] = (int64_t)(i * 1024);
  int64_t *offs;
  CK(cudaMalloc(&offs, (ns + 1) * sizeof(int64_t)));
  CK(cudaMemcpy(offs, ho.data(), (ns + 1) * sizeof(int64_t), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&out, ns * sizeof(float)));
  size_t b = 0;
  CK(cub::DeviceSegmentedReduce::Sum(nullptr, b, in, out, (int64_t)ns, offs, offs + 1));
  need(b);
  line("segmented_sum", "float32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceSegmentedReduce::Sum(tmp, bb, in, out, (int64_t)ns, offs, offs + 1); }));
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(offs));
}

// runs: int32 values i/run, as the Go benchmarks make them.
static int32_t *runsBuf(size_t n, size_t run) {
  std::vector<int32_t> h(n);
  for (size_t i = 0; i < n; i++) h[i] = (int32_t)(i / run);
  int32_t *d;
  CK(cudaMalloc(&d, n * 4));
  CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
  return d;
}

// selection: DeviceSelect::Flagged, DevicePartition::Flagged (about half
// the flags set), DeviceSelect::Unique and DeviceRunLengthEncode::Encode
// (runs of 8), DeviceScan::InclusiveSumByKey (keys in runs of 64).
static void selection(size_t n) {
  int32_t *in = randomBuf<int32_t>(n, 10, false), *out;
  uint8_t *flags = randomBuf<uint8_t>(n, 11, false);
  CK(cudaMalloc(&out, n * 4));
  // Flags 0 or 1: the low bit of random bytes.
  {
    std::vector<uint8_t> h(n);
    CK(cudaMemcpy(h.data(), flags, n, cudaMemcpyDeviceToHost));
    for (auto &f : h) f &= 1;
    CK(cudaMemcpy(flags, h.data(), n, cudaMemcpyHostToDevice));
  }
  int64_t *num;
  CK(cudaMalloc(&num, sizeof(int64_t)));
  size_t b = 0;
  CK(cub::DeviceSelect::Flagged(nullptr, b, in, flags, out, num, (int64_t)n));
  need(b);
  line("select_flagged", "int32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceSelect::Flagged(tmp, bb, in, flags, out, num, (int64_t)n); }));
  b = 0;
  CK(cub::DevicePartition::Flagged(nullptr, b, in, flags, out, num, (int64_t)n));
  need(b);
  line("partition_flagged", "int32", n, timeit([&] { size_t bb = tmpBytes; cub::DevicePartition::Flagged(tmp, bb, in, flags, out, num, (int64_t)n); }));
  int32_t *runs = runsBuf(n, 8);
  b = 0;
  CK(cub::DeviceSelect::Unique(nullptr, b, runs, out, num, (int64_t)n));
  need(b);
  line("unique", "int32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceSelect::Unique(tmp, bb, runs, out, num, (int64_t)n); }));
  int64_t *counts;
  CK(cudaMalloc(&counts, n * sizeof(int64_t)));
  b = 0;
  CK(cub::DeviceRunLengthEncode::Encode(nullptr, b, runs, out, counts, num, (int64_t)n));
  need(b);
  line("rle_encode", "int32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceRunLengthEncode::Encode(tmp, bb, runs, out, counts, num, (int64_t)n); }));
  int32_t *keys = runsBuf(n, 64), *vals = randomBuf<int32_t>(n, 12, true);
  b = 0;
  CK(cub::DeviceScan::InclusiveSumByKey(nullptr, b, keys, vals, out, (int64_t)n));
  need(b);
  line("inclusive_sum_by_key", "int32-int32", n, timeit([&] { size_t bb = tmpBytes; cub::DeviceScan::InclusiveSumByKey(tmp, bb, keys, vals, out, (int64_t)n); }));
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(flags));
  CK(cudaFree(num));
  CK(cudaFree(runs));
  CK(cudaFree(counts));
  CK(cudaFree(keys));
  CK(cudaFree(vals));
}

int main(int argc, char **argv) {
  if (argc > 1) RUNS = atoi(argv[1]);
  int maxlog = argc > 2 ? atoi(argv[2]) : 26;
  for (int lg : {20, 24, 26, 28}) {
    if (lg > maxlog) break;
    size_t n = (size_t)1 << lg;
    transform<float>("float32", n);
    reduce<float>("float32", n);
    reduce<int32_t>("int32", n);
    reduce<double>("float64", n);
    scan<int32_t>("int32", n);
    scan<float>("float32", n);
    sortKeys<uint32_t>("uint32", n);
    sortKeys<float>("float32", n);
    sortKeys<uint64_t>("uint64", n);
    sortPairs(n);
    mergeSortKeys<uint32_t>("uint32", n);
    mergeSortKeys<float>("float32", n);
    mergeSortPairs(n);
    histogram(n);
    segmented(n);
    selection(n);
  }
  return 0;
}
