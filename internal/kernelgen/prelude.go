package kernelgen

// prelude is the part of every translation unit that does not depend on the
// kernels: the language pieces a header would give (attributes, index
// reads, barriers), slices and arrays, Go's integer semantics, the fault
// record, warp operations and atomics. It compiles in four settings: clang
// offline for AMDGPU and NVPTX (no headers: builtins only), hipRTC and
// NVRTC (whose own HIP and CUDA names are predefined).
const prelude = `// Go semantics. Floating-point operations are native: the Go spec lets an
// implementation fuse x*y+z into one rounding (FMA contraction), and the GPU
// compilers do, so a float result may differ from the cpu agent's in the
// last place. Integer arithmetic wraps and shifts past the width give Go's
// result on every path; the _checked entry points also record the first
// index, slice-bound, division or shift failure in a hg_fault.

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__HIP__) && !defined(__CUDA__)
#error "hipgo kernels: compile as -x hip or -x cuda (device only), or with hipRTC or NVRTC"
#endif

#if defined(__CUDACC_RTC__)
#define HG_NVRTC 1
#elif defined(__AMDGPU__) || defined(__HIPCC_RTC__)
#define HG_AMD 1
#elif defined(__NVPTX__)
#define HG_NVPTX 1
#else
#error "hipgo kernels: device-only compilation expected (--cuda-device-only)"
#endif

#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(n) __attribute__((launch_bounds(n)))
#endif
#define HG_DEV __device__ inline __attribute__((always_inline))

// No runtime compiler nor offline build predefines these (hipRTC has only
// __hip_int8_t and the like); Go int is long long, so is int64.
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

// ---- printf ----

// hg_printf is kernel.Printf, its format already C's. On AMD hipgo sets
// up no device printf buffer yet: the arguments are evaluated, nothing is
// printed.
#if defined(HG_NVPTX)
extern "C" __device__ int printf(const char*, ...);
#endif
template <class... A> HG_DEV void hg_printf(const char* f, A... a) {
#if defined(HG_NVPTX) || defined(HG_NVRTC)
  printf(f, a...);
#else
  (void)f;
  ((void)a, ...);
#endif
}

// ---- indices and barriers ----

#if defined(HG_AMD)
HG_DEV unsigned hg_tid_x() { return __builtin_amdgcn_workitem_id_x(); }
HG_DEV unsigned hg_tid_y() { return __builtin_amdgcn_workitem_id_y(); }
HG_DEV unsigned hg_tid_z() { return __builtin_amdgcn_workitem_id_z(); }
HG_DEV unsigned hg_bid_x() { return __builtin_amdgcn_workgroup_id_x(); }
HG_DEV unsigned hg_bid_y() { return __builtin_amdgcn_workgroup_id_y(); }
HG_DEV unsigned hg_bid_z() { return __builtin_amdgcn_workgroup_id_z(); }
// Code object v5: hidden_group_size_* and hidden_block_count_* from the
// implicit kernel arguments.
HG_DEV unsigned hg_bdim_x() { return __builtin_amdgcn_workgroup_size_x(); }
HG_DEV unsigned hg_bdim_y() { return __builtin_amdgcn_workgroup_size_y(); }
HG_DEV unsigned hg_bdim_z() { return __builtin_amdgcn_workgroup_size_z(); }
HG_DEV unsigned hg_block_count(int i) {
  const unsigned __attribute__((address_space(4))) *p =
      (const unsigned __attribute__((address_space(4))) *)__builtin_amdgcn_implicitarg_ptr();
  return p[i];
}
HG_DEV unsigned hg_gdim_x() { return hg_block_count(0); }
HG_DEV unsigned hg_gdim_y() { return hg_block_count(1); }
HG_DEV unsigned hg_gdim_z() { return hg_block_count(2); }
HG_DEV void hg_sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
HG_DEV void hg_sync_warp() { __builtin_amdgcn_wave_barrier(); }
// Older runtime compilers (the hipRTC of ROCm 5) lack the builtin; the
// macro says the same for the target compiled for.
#if __has_builtin(__builtin_amdgcn_wavefrontsize)
HG_DEV long long hg_warp_size() { return __builtin_amdgcn_wavefrontsize(); }
#else
HG_DEV long long hg_warp_size() { return __AMDGCN_WAVEFRONT_SIZE; }
#endif
#elif defined(HG_NVPTX)
HG_DEV unsigned hg_tid_x() { return __nvvm_read_ptx_sreg_tid_x(); }
HG_DEV unsigned hg_tid_y() { return __nvvm_read_ptx_sreg_tid_y(); }
HG_DEV unsigned hg_tid_z() { return __nvvm_read_ptx_sreg_tid_z(); }
HG_DEV unsigned hg_bid_x() { return __nvvm_read_ptx_sreg_ctaid_x(); }
HG_DEV unsigned hg_bid_y() { return __nvvm_read_ptx_sreg_ctaid_y(); }
HG_DEV unsigned hg_bid_z() { return __nvvm_read_ptx_sreg_ctaid_z(); }
HG_DEV unsigned hg_bdim_x() { return __nvvm_read_ptx_sreg_ntid_x(); }
HG_DEV unsigned hg_bdim_y() { return __nvvm_read_ptx_sreg_ntid_y(); }
HG_DEV unsigned hg_bdim_z() { return __nvvm_read_ptx_sreg_ntid_z(); }
HG_DEV unsigned hg_gdim_x() { return __nvvm_read_ptx_sreg_nctaid_x(); }
HG_DEV unsigned hg_gdim_y() { return __nvvm_read_ptx_sreg_nctaid_y(); }
HG_DEV unsigned hg_gdim_z() { return __nvvm_read_ptx_sreg_nctaid_z(); }
HG_DEV void hg_sync_threads() { __syncthreads(); }
HG_DEV void hg_sync_warp() { __nvvm_bar_warp_sync(0xffffffffu); }
HG_DEV long long hg_warp_size() { return 32; }
#else // NVRTC
HG_DEV unsigned hg_tid_x() { return threadIdx.x; }
HG_DEV unsigned hg_tid_y() { return threadIdx.y; }
HG_DEV unsigned hg_tid_z() { return threadIdx.z; }
HG_DEV unsigned hg_bid_x() { return blockIdx.x; }
HG_DEV unsigned hg_bid_y() { return blockIdx.y; }
HG_DEV unsigned hg_bid_z() { return blockIdx.z; }
HG_DEV unsigned hg_bdim_x() { return blockDim.x; }
HG_DEV unsigned hg_bdim_y() { return blockDim.y; }
HG_DEV unsigned hg_bdim_z() { return blockDim.z; }
HG_DEV unsigned hg_gdim_x() { return gridDim.x; }
HG_DEV unsigned hg_gdim_y() { return gridDim.y; }
HG_DEV unsigned hg_gdim_z() { return gridDim.z; }
HG_DEV void hg_sync_threads() { __syncthreads(); }
HG_DEV void hg_sync_warp() { __syncwarp(); }
HG_DEV long long hg_warp_size() { return 32; }
#endif

// kernel.Dim: Go ints, 64 bits.
struct hg_dim { long long X, Y, Z; };
HG_DEV hg_dim hg_thread_idx() { return {hg_tid_x(), hg_tid_y(), hg_tid_z()}; }
HG_DEV hg_dim hg_block_idx() { return {hg_bid_x(), hg_bid_y(), hg_bid_z()}; }
HG_DEV hg_dim hg_block_dim() { return {hg_bdim_x(), hg_bdim_y(), hg_bdim_z()}; }
HG_DEV hg_dim hg_grid_dim() { return {hg_gdim_x(), hg_gdim_y(), hg_gdim_z()}; }
HG_DEV long long hg_global_x() { return (long long)hg_bid_x() * hg_bdim_x() + hg_tid_x(); }
HG_DEV long long hg_global_y() { return (long long)hg_bid_y() * hg_bdim_y() + hg_tid_y(); }
HG_DEV long long hg_global_z() { return (long long)hg_bid_z() * hg_bdim_z() + hg_tid_z(); }
// The work-item's lane: its linear index in the block modulo the warp.
HG_DEV long long hg_lane() {
  return ((hg_tid_z() * hg_bdim_y() + hg_tid_y()) * hg_bdim_x() + hg_tid_x()) & (unsigned)(hg_warp_size() - 1);
}

// ---- the fault record ----

struct hg_fault { unsigned set, kind, line, file; long long index, len; };

// HG_UNLIKELY marks a check's failure: the compiler lays the fault path
// out of line, so the checked loop stays one straight block.
#define HG_UNLIKELY(x) __builtin_expect(!!(x), 0)

// The _checked entry keeps each work-item's first fault in a record of
// its own, in registers, and publishes it to the launch's record when the
// kernel returns (hg_publish): the first to publish wins. hg_note records
// a check's outcome with no branch on the way that succeeds but the
// unlikely one to the fields, and a check repeated after it (a tile's
// row index in every step of an unrolled loop) folds away: bad & !set is
// false once set |= bad.
// HG_ASSUME(Checked, x): the checked variant takes x as given, a counted
// loop's index within the bounds the count was made from, so a check of
// the index against the same bound (s[i] in for i < len(s)) folds away.
#if defined(__clang__)
#define HG_ASSUME(C, x) \
  do {                  \
    if (C) __builtin_assume(x); \
  } while (0)
#else
#define HG_ASSUME(C, x) \
  do {                  \
  } while (0)
#endif

HG_DEV void hg_note(hg_fault* f, bool bad, unsigned kind, unsigned line, unsigned file, long long index, long long len) {
  bool was = f->set != 0u;
  bool first = bad & !was;
  f->set = (unsigned)(was | bad);
  if (HG_UNLIKELY(first)) {
    f->kind = kind;
    f->line = line;
    f->file = file;
    f->index = index;
    f->len = len;
  }
}
HG_DEV void hg_fail(hg_fault* f, unsigned kind, unsigned line, unsigned file, long long index, long long len) {
  hg_note(f, true, kind, line, file, index, len);
}
HG_DEV void hg_publish(hg_fault* g, const hg_fault& l) {
  if (HG_UNLIKELY(l.set != 0u)) {
#if defined(HG_NVRTC)
    unsigned won = atomicCAS(&g->set, 0u, 1u) == 0u;
#else
    unsigned zero = 0;
    unsigned won = __atomic_compare_exchange_n(&g->set, &zero, 1u, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
    if (won) {
      g->kind = l.kind;
      g->line = l.line;
      g->file = l.file;
      g->index = l.index;
      g->len = l.len;
    }
  }
}

// Where a faulting checked write goes, so no memory outside bounds is
// touched.
static __device__ __attribute__((unused)) unsigned long long hg_scratch[64];

// ---- types ----

template <class T> struct hg_traits;
#define HG_TRAITS(T, W, S, I)                                                  \
  template <> struct hg_traits<T> {                                            \
    typedef W wide;                                                            \
    static const bool is_signed = S, is_int = I;                               \
  }
HG_TRAITS(signed char, unsigned, true, true);
HG_TRAITS(short, unsigned, true, true);
HG_TRAITS(int, unsigned, true, true);
HG_TRAITS(long long, unsigned long long, true, true);
HG_TRAITS(unsigned char, unsigned, false, true);
HG_TRAITS(unsigned short, unsigned, false, true);
HG_TRAITS(unsigned, unsigned, false, true);
HG_TRAITS(unsigned long long, unsigned long long, false, true);
HG_TRAITS(float, float, true, false);
HG_TRAITS(double, double, true, false);
#undef HG_TRAITS

template <class T> struct hg_unconst { typedef T type; };
template <class T> struct hg_unconst<const T> { typedef T type; };

// A Go slice: pointer, length, capacity.
template <class T> struct hg_slice {
  T* p;
  long long n, c;
};
template <class T> HG_DEV hg_slice<const T> hg_const(hg_slice<T> s) { return {s.p, s.n, s.c}; }
template <class T> HG_DEV hg_slice<T> hg_make_slice(T* p, long long n) { return {p, n, n}; }
// A bare pointer's slice in an unchecked body: the kernel never reads its
// length, so it is the largest, which no bound could fail.
template <class T> HG_DEV hg_slice<T> hg_bare(T* p) { return {p, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL}; }

// A Go array: a value, copied on assignment.
template <class T, long long N> struct hg_array {
  T v[N];
  __device__ T& operator[](long long i) { return v[i]; }
  __device__ const T& operator[](long long i) const { return v[i]; }
};

// ---- Go integer semantics ----

// + - * wrap: through the unsigned type (C++ signed overflow is undefined),
// and narrow types are cut back to their width.
template <class T> HG_DEV T hg_add(T a, T b) { typedef typename hg_traits<T>::wide W; return (T)((W)a + (W)b); }
template <class T> HG_DEV T hg_sub(T a, T b) { typedef typename hg_traits<T>::wide W; return (T)((W)a - (W)b); }
template <class T> HG_DEV T hg_mul(T a, T b) { typedef typename hg_traits<T>::wide W; return (T)((W)a * (W)b); }
template <class T> HG_DEV T hg_neg(T a) { typedef typename hg_traits<T>::wide W; return (T)((W)0 - (W)a); }

template <class S> HG_DEV bool hg_negative(S s) { return hg_traits<S>::is_signed && s < (S)0; }

template <bool C, class T, class S> HG_DEV T hg_shl(T x, S s, hg_fault* f, unsigned line, unsigned file) {
  if (HG_UNLIKELY(hg_negative(s))) {
    if (C) hg_fail(f, 4, line, file, (long long)s, 0);
    return 0;
  }
  if ((unsigned long long)s >= sizeof(T) * 8) return 0;
  typedef typename hg_traits<T>::wide W;
  return (T)((W)x << s);
}
template <bool C, class T, class S> HG_DEV T hg_shr(T x, S s, hg_fault* f, unsigned line, unsigned file) {
  if (HG_UNLIKELY(hg_negative(s))) {
    if (C) hg_fail(f, 4, line, file, (long long)s, 0);
    return 0;
  }
  if ((unsigned long long)s >= sizeof(T) * 8) return (hg_traits<T>::is_signed && x < (T)0) ? (T)-1 : (T)0;
  return (T)(x >> s);
}

// Division: by zero records a fault (checked) and gives 0; MinInt / -1 is
// MinInt and MinInt % -1 is 0, as in Go. Floats divide natively.
template <bool C, class T> HG_DEV T hg_div(T a, T b, hg_fault* f, unsigned line, unsigned file) {
  if (!hg_traits<T>::is_int) return a / b;
  if (HG_UNLIKELY(b == (T)0)) {
    if (C) hg_fail(f, 2, line, file, 0, 0);
    return 0;
  }
  if (hg_traits<T>::is_signed && b == (T)-1) return hg_neg(a);
  return (T)(a / b);
}
template <bool C, class T> HG_DEV T hg_rem(T a, T b, hg_fault* f, unsigned line, unsigned file) {
  if (HG_UNLIKELY(b == (T)0)) {
    if (C) hg_fail(f, 2, line, file, 0, 0);
    return 0;
  }
  if (hg_traits<T>::is_signed && b == (T)-1) return 0;
  return (T)(a % b);
}

// hg_fmul_rn and hg_dmul_rn are x*y rounded on its own: Go's float32(x*y)
// and float64(x*y), which the spec says an implementation must not fuse
// into a following add. NVIDIA: a mul with an explicit rounding mode,
// which ptxas never contracts; clang: a product compiled without
// contraction (honoured under -ffp-contract=fast-honor-pragmas, hipRTC's
// default and hipgo-gen's).
#if defined(HG_NVRTC)
HG_DEV float hg_fmul_rn(float a, float b) { return __fmul_rn(a, b); }
HG_DEV double hg_dmul_rn(double a, double b) { return __dmul_rn(a, b); }
#elif defined(HG_NVPTX)
HG_DEV float hg_fmul_rn(float a, float b) {
  float r;
  asm("mul.rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
HG_DEV double hg_dmul_rn(double a, double b) {
  double r;
  asm("mul.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b));
  return r;
}
#else
HG_DEV float hg_fmul_rn(float a, float b) {
#pragma clang fp contract(off)
  return a * b;
}
HG_DEV double hg_dmul_rn(double a, double b) {
#pragma clang fp contract(off)
  return a * b;
}
#endif
// hg_mul_rn is T(x*y) in a generic function: the product rounded on its
// own for a float T, Go's wrapping product for an integer one.
template <class T> HG_DEV T hg_mul_rn(T a, T b) { return hg_mul(a, b); }
template <> HG_DEV float hg_mul_rn<float>(float a, float b) { return hg_fmul_rn(a, b); }
template <> HG_DEV double hg_mul_rn<double>(double a, double b) { return hg_dmul_rn(a, b); }

// A device function's several results.
template <class A, class B> struct hg_tuple2 { A r0; B r1; };
template <class A, class B, class C> struct hg_tuple3 { A r0; B r1; C r2; };
template <class A, class B, class C, class D> struct hg_tuple4 { A r0; B r1; C r2; D r3; };

template <class T> HG_DEV T hg_min(T a, T b) { return b < a ? b : a; }
template <class T> HG_DEV T hg_max(T a, T b) { return b > a ? b : a; }

// ---- bounds ----

// hg_ld reads s[i]: zero when i is out of range (checked). hg_ref is the
// place s[i]: the scratch cell when i is out of range (checked).
// A slice's read branches once: the load waits on the check anyway.
template <bool C, class T> HG_DEV typename hg_unconst<T>::type hg_ld(hg_slice<T> s, long long i, hg_fault* f, unsigned line, unsigned file) {
  if (C && HG_UNLIKELY((unsigned long long)i >= (unsigned long long)s.n)) {
    hg_fail(f, 1, line, file, i, s.n);
    return {};
  }
  return s.p[i];
}
template <bool C, class T> HG_DEV T& hg_ref(hg_slice<T> s, long long i, hg_fault* f, unsigned line, unsigned file) {
  static_assert(sizeof(T) <= sizeof(hg_scratch), "element larger than the scratch cell");
  bool bad = C && (unsigned long long)i >= (unsigned long long)s.n;
  if (C) hg_note(f, bad, 1, line, file, i, s.n);
  if (HG_UNLIKELY(bad)) return *(T*)hg_scratch;
  return s.p[i];
}
// An array's checked read loads a.v[0] where i fails (N > 0): the load
// does not wait on the check.
template <bool C, class T, long long N> HG_DEV T hg_ld(const hg_array<T, N>& a, long long i, hg_fault* f, unsigned line, unsigned file) {
  bool bad = C && (unsigned long long)i >= (unsigned long long)N;
  if (C) hg_note(f, bad, 1, line, file, i, N);
  if (C && N == 0) return {};
  T v = a.v[bad ? 0 : i];
  return bad ? T{} : v;
}
// hg_cref is a[i] as the base of a read (a[i][j]): a failed index gives
// a's first element, in a's address space, where hg_ref gives the global
// scratch cell and makes every read through it a generic one.
template <bool C, class T, long long N> HG_DEV const T& hg_cref(const hg_array<T, N>& a, long long i, hg_fault* f, unsigned line, unsigned file) {
  bool bad = C && (unsigned long long)i >= (unsigned long long)N;
  if (C) hg_note(f, bad, 1, line, file, i, N);
  return a.v[bad ? 0 : i];
}
template <bool C, class T, long long N> HG_DEV T& hg_ref(hg_array<T, N>& a, long long i, hg_fault* f, unsigned line, unsigned file) {
  static_assert(sizeof(T) <= sizeof(hg_scratch), "element larger than the scratch cell");
  bool bad = C && (unsigned long long)i >= (unsigned long long)N;
  if (C) hg_note(f, bad, 1, line, file, i, N);
  if (HG_UNLIKELY(bad)) return *(T*)hg_scratch;
  return a.v[i];
}

// hg_place is a checked place s[i], a[i] or a[i][j], written by an
// assignment (operator=: the value first, then the place, as C++17 orders
// E1 = E2). ok false: the index failed, the fault is recorded, and the
// write is dropped; p then points at the base, in its address space, and
// is never written. Unchecked, ok is the constant true and the place is a
// plain pointer.
template <class T> struct hg_place {
  T* p;
  bool ok;
  template <class V> __device__ const hg_place& operator=(const V& v) const {
    if (ok) *p = v;
    return *this;
  }
  // The value at the place, zero where the index failed (a compound
  // assignment's read).
  __device__ T get() const {
    if (HG_UNLIKELY(!ok)) return {};
    return *p;
  }
};
template <bool C, class T> HG_DEV hg_place<T> hg_at(hg_slice<T> s, long long i, hg_fault* f, unsigned line, unsigned file) {
  bool bad = C && (unsigned long long)i >= (unsigned long long)s.n;
  if (C) hg_note(f, bad, 1, line, file, i, s.n);
  return {bad ? s.p : s.p + i, !bad};
}
template <bool C, class T, long long N> HG_DEV hg_place<T> hg_at(hg_array<T, N>& a, long long i, hg_fault* f, unsigned line, unsigned file) {
  bool bad = C && (unsigned long long)i >= (unsigned long long)N;
  if (C) hg_note(f, bad, 1, line, file, i, N);
  return {bad ? a.v : a.v + i, !bad};
}
// a[i][j]: the element j of the place a[i]; a failed a[i] (Go panicked
// there) records nothing more.
template <bool C, class T, long long N> HG_DEV hg_place<T> hg_at(hg_place<hg_array<T, N>> a, long long i, hg_fault* f, unsigned line, unsigned file) {
  bool bad = C && (unsigned long long)i >= (unsigned long long)N;
  if (C) hg_note(f, a.ok & bad, 1, line, file, i, N);
  bool ok = a.ok & !bad;
  return {ok ? a.p->v + i : a.p->v, ok};
}
// hg_ptr is &place for an atomic: a failed place gives the global scratch
// cell, hg_ptr_shared a shared one, so a shared array's atomics stay
// shared atomics (atom.shared) and a failed one touches nothing in bounds.
template <class T> HG_DEV T* hg_ptr(hg_place<T> a) {
  static_assert(sizeof(T) <= sizeof(hg_scratch), "element larger than the scratch cell");
  return a.ok ? a.p : (T*)hg_scratch;
}
template <class T> HG_DEV T* hg_ptr_shared(hg_place<T> a) {
  __shared__ T hg_sink;
  return a.ok ? a.p : &hg_sink;
}

// s[lo:hi] (hi < 0: omitted). A bad bound records a fault (checked) and
// gives an empty slice.
template <bool C, class T> HG_DEV hg_slice<T> hg_sub(hg_slice<T> s, long long lo, long long hi, hg_fault* f, unsigned line, unsigned file) {
  if (hi < 0) hi = s.n;
  if (C && HG_UNLIKELY((unsigned long long)hi > (unsigned long long)s.c || (unsigned long long)lo > (unsigned long long)hi)) {
    hg_fail(f, 3, line, file, (unsigned long long)hi > (unsigned long long)s.c ? hi : lo, s.c);
    return {s.p, 0, 0};
  }
  return {s.p + lo, hi - lo, s.c - lo};
}
template <bool C, class T, long long N> HG_DEV hg_slice<T> hg_sub(hg_array<T, N>& a, long long lo, long long hi, hg_fault* f, unsigned line, unsigned file) {
  return hg_sub<C>(hg_slice<T>{a.v, N, N}, lo, hi, f, line, file);
}

// ---- bits ----

#if defined(HG_NVRTC)
HG_DEV unsigned hg_f32_bits(float x) { return __float_as_uint(x); }
HG_DEV float hg_f32_from(unsigned x) { return __uint_as_float(x); }
HG_DEV unsigned long long hg_f64_bits(double x) { return (unsigned long long)__double_as_longlong(x); }
HG_DEV double hg_f64_from(unsigned long long x) { return __longlong_as_double((long long)x); }
#else
HG_DEV unsigned hg_f32_bits(float x) { return __builtin_bit_cast(unsigned, x); }
HG_DEV float hg_f32_from(unsigned x) { return __builtin_bit_cast(float, x); }
HG_DEV unsigned long long hg_f64_bits(double x) { return __builtin_bit_cast(unsigned long long, x); }
HG_DEV double hg_f64_from(unsigned long long x) { return __builtin_bit_cast(double, x); }
#endif
template <class T> struct hg_bits;
template <> struct hg_bits<int> { typedef unsigned type; };
template <> struct hg_bits<unsigned> { typedef unsigned type; };
template <> struct hg_bits<float> { typedef unsigned type; };
template <> struct hg_bits<long long> { typedef unsigned long long type; };
template <> struct hg_bits<unsigned long long> { typedef unsigned long long type; };
template <> struct hg_bits<double> { typedef unsigned long long type; };
template <class T> HG_DEV typename hg_bits<T>::type hg_to_bits(T x) {
  typedef typename hg_bits<T>::type B;
#if defined(HG_NVRTC)
  // NVRTC has neither __builtin_bit_cast nor __builtin_memcpy; NVIDIA's
  // compiler defines a read of a union's other member.
  union {
    T t;
    B b;
  } u;
  u.t = x;
  return u.b;
#else
  return __builtin_bit_cast(B, x);
#endif
}
template <class T> HG_DEV T hg_from_bits(typename hg_bits<T>::type b) {
#if defined(HG_NVRTC)
  union {
    typename hg_bits<T>::type b;
    T t;
  } u;
  u.b = b;
  return u.t;
#else
  return __builtin_bit_cast(T, b);
#endif
}

// ---- warp operations ----

// A 32-bit shuffle from lane src of the warp; every lane takes part.
#if defined(HG_AMD)
HG_DEV unsigned hg_shfl32(unsigned v, int src) { return (unsigned)__builtin_amdgcn_ds_bpermute(src << 2, (int)v); }
HG_DEV unsigned long long hg_ballot(bool p) {
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 32 && __has_builtin(__builtin_amdgcn_ballot_w32)
  return __builtin_amdgcn_ballot_w32(p);
#elif __has_builtin(__builtin_amdgcn_ballot_w64)
  return __builtin_amdgcn_ballot_w64(p);
#else
  // ROCm 5's compiler: a compare across the wave, 33 is ICMP_NE.
  return __builtin_amdgcn_uicmp((unsigned)p, 0u, 33);
#endif
}
#elif defined(HG_NVPTX)
HG_DEV unsigned hg_shfl32(unsigned v, int src) { return (unsigned)__nvvm_shfl_sync_idx_i32(0xffffffffu, (int)v, src, 0x1f); }
HG_DEV unsigned long long hg_ballot(bool p) { return __nvvm_vote_ballot_sync(0xffffffffu, p); }
#else
HG_DEV unsigned hg_shfl32(unsigned v, int src) { return __shfl_sync(0xffffffffu, v, src); }
HG_DEV unsigned long long hg_ballot(bool p) { return __ballot_sync(0xffffffffu, p); }
#endif
HG_DEV unsigned hg_shfl_bits(unsigned v, int src) { return hg_shfl32(v, src); }
HG_DEV unsigned long long hg_shfl_bits(unsigned long long v, int src) {
  unsigned lo = hg_shfl32((unsigned)v, src), hi = hg_shfl32((unsigned)(v >> 32), src);
  return ((unsigned long long)hi << 32) | lo;
}
// Lane src's v, or the caller's own v when src is outside the warp (as the
// cpu agent does).
template <class T> HG_DEV T hg_shfl_from(T v, long long src) {
  long long ws = hg_warp_size();
  bool in = src >= 0 && src < ws;
  T got = hg_from_bits<T>(hg_shfl_bits(hg_to_bits(v), in ? (int)src : (int)hg_lane()));
  return in ? got : v;
}
template <class T> HG_DEV T hg_shfl(T v, long long src) { return hg_shfl_from(v, src); }
#if defined(HG_NVPTX) || defined(HG_NVRTC)
// NVIDIA's shfl.down and shfl.up give the caller's own value past the
// warp's edge, as Go's do: one instruction for a shift inside the warp.
#if defined(HG_NVPTX)
HG_DEV unsigned hg_shfl_down32(unsigned v, unsigned d) { return (unsigned)__nvvm_shfl_sync_down_i32(0xffffffffu, (int)v, (int)d, 0x1f); }
HG_DEV unsigned hg_shfl_up32(unsigned v, unsigned d) { return (unsigned)__nvvm_shfl_sync_up_i32(0xffffffffu, (int)v, (int)d, 0); }
#else
HG_DEV unsigned hg_shfl_down32(unsigned v, unsigned d) { return __shfl_down_sync(0xffffffffu, v, d); }
HG_DEV unsigned hg_shfl_up32(unsigned v, unsigned d) { return __shfl_up_sync(0xffffffffu, v, d); }
#endif
HG_DEV unsigned hg_shfl_down_bits(unsigned v, unsigned d) { return hg_shfl_down32(v, d); }
HG_DEV unsigned hg_shfl_up_bits(unsigned v, unsigned d) { return hg_shfl_up32(v, d); }
HG_DEV unsigned long long hg_shfl_down_bits(unsigned long long v, unsigned d) {
  return ((unsigned long long)hg_shfl_down32((unsigned)(v >> 32), d) << 32) | hg_shfl_down32((unsigned)v, d);
}
HG_DEV unsigned long long hg_shfl_up_bits(unsigned long long v, unsigned d) {
  return ((unsigned long long)hg_shfl_up32((unsigned)(v >> 32), d) << 32) | hg_shfl_up32((unsigned)v, d);
}
template <class T> HG_DEV T hg_shfl_down(T v, long long d) {
  if (d >= 0 && d < 32) return hg_from_bits<T>(hg_shfl_down_bits(hg_to_bits(v), (unsigned)d));
  return hg_shfl_from(v, hg_lane() + d);
}
template <class T> HG_DEV T hg_shfl_up(T v, long long d) {
  if (d >= 0 && d < 32) return hg_from_bits<T>(hg_shfl_up_bits(hg_to_bits(v), (unsigned)d));
  return hg_shfl_from(v, hg_lane() - d);
}
#else
template <class T> HG_DEV T hg_shfl_down(T v, long long d) { return hg_shfl_from(v, hg_lane() + d); }
template <class T> HG_DEV T hg_shfl_up(T v, long long d) { return hg_shfl_from(v, hg_lane() - d); }
#endif
template <class T> HG_DEV T hg_shfl_xor(T v, long long m) { return hg_shfl_from(v, hg_lane() ^ m); }
HG_DEV bool hg_any(bool p) { return hg_ballot(p) != 0; }
HG_DEV bool hg_all(bool p) { return hg_ballot(!p) == 0; }

// ---- atomics (relaxed, device scope) ----

#if defined(HG_NVRTC)
template <class T> struct hg_nv;
template <> struct hg_nv<int> { typedef int type; };
template <> struct hg_nv<unsigned> { typedef unsigned type; };
template <> struct hg_nv<long long> { typedef unsigned long long type; };
template <> struct hg_nv<unsigned long long> { typedef unsigned long long type; };
template <> struct hg_nv<float> { typedef float type; };
template <> struct hg_nv<double> { typedef double type; };
template <class T> HG_DEV T hg_atomic_add(T* p, T v) { typedef typename hg_nv<T>::type N; return (T)atomicAdd((N*)p, (N)v); }
template <class T> HG_DEV T hg_atomic_cas_bits(T* p, T cmp, T v) {
  typedef typename hg_bits<T>::type B;
  return hg_from_bits<T>(atomicCAS((B*)p, hg_to_bits(cmp), hg_to_bits(v)));
}
HG_DEV int hg_atomic_min_int(int* p, int v) { return atomicMin(p, v); }
HG_DEV unsigned hg_atomic_min_int(unsigned* p, unsigned v) { return atomicMin(p, v); }
HG_DEV long long hg_atomic_min_int(long long* p, long long v) { return atomicMin(p, v); }
HG_DEV unsigned long long hg_atomic_min_int(unsigned long long* p, unsigned long long v) { return atomicMin(p, v); }
HG_DEV int hg_atomic_max_int(int* p, int v) { return atomicMax(p, v); }
HG_DEV unsigned hg_atomic_max_int(unsigned* p, unsigned v) { return atomicMax(p, v); }
HG_DEV long long hg_atomic_max_int(long long* p, long long v) { return atomicMax(p, v); }
HG_DEV unsigned long long hg_atomic_max_int(unsigned long long* p, unsigned long long v) { return atomicMax(p, v); }
template <class T> HG_DEV T hg_atomic_and(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)atomicAnd((B*)p, (B)v); }
template <class T> HG_DEV T hg_atomic_or(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)atomicOr((B*)p, (B)v); }
template <class T> HG_DEV T hg_atomic_xor(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)atomicXor((B*)p, (B)v); }
template <class T> HG_DEV T hg_atomic_exch(T* p, T v) {
  typedef typename hg_bits<T>::type B;
  return hg_from_bits<T>(atomicExch((B*)p, hg_to_bits(v)));
}
#else
#if defined(HG_AMD)
#define HG_SCOPE , __HIP_MEMORY_SCOPE_AGENT
#define HG_ATOMIC(op) __hip_atomic_##op
#else
#define HG_SCOPE
#define HG_ATOMIC(op) __atomic_##op
#endif
template <class T> HG_DEV T hg_atomic_add(T* p, T v) { return HG_ATOMIC(fetch_add)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_cas_bits(T* p, T cmp, T v) {
  typedef typename hg_bits<T>::type B;
  B c = hg_to_bits(cmp);
#if defined(HG_AMD)
  __hip_atomic_compare_exchange_strong((B*)p, &c, hg_to_bits(v), __ATOMIC_RELAXED, __ATOMIC_RELAXED HG_SCOPE);
#else
  __atomic_compare_exchange_n((B*)p, &c, hg_to_bits(v), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
#endif
  return hg_from_bits<T>(c);
}
template <class T> HG_DEV T hg_atomic_min_int(T* p, T v) { return HG_ATOMIC(fetch_min)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_max_int(T* p, T v) { return HG_ATOMIC(fetch_max)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_and(T* p, T v) { return HG_ATOMIC(fetch_and)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_or(T* p, T v) { return HG_ATOMIC(fetch_or)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_xor(T* p, T v) { return HG_ATOMIC(fetch_xor)(p, v, __ATOMIC_RELAXED HG_SCOPE); }
template <class T> HG_DEV T hg_atomic_exch(T* p, T v) {
  typedef typename hg_bits<T>::type B;
#if defined(HG_AMD)
  return hg_from_bits<T>(__hip_atomic_exchange((B*)p, hg_to_bits(v), __ATOMIC_RELAXED HG_SCOPE));
#else
  return hg_from_bits<T>(__atomic_exchange_n((B*)p, hg_to_bits(v), __ATOMIC_RELAXED));
#endif
}
#undef HG_ATOMIC
#undef HG_SCOPE
#endif
template <class T> HG_DEV T hg_atomic_cas(T* p, T cmp, T v) { return hg_atomic_cas_bits(p, cmp, v); }
template <class T> HG_DEV T hg_atomic_sub(T* p, T v) {
  if (hg_traits<T>::is_int) return hg_atomic_add(p, hg_neg(v));
  return hg_atomic_add(p, -v);
}
// Floats have no native min/max (and Go's never stores a NaN over a number):
// a compare-and-swap loop on the bits.
template <class T> HG_DEV T hg_atomic_minmax_f(T* p, T v, bool max) {
  T old = *(volatile T*)p;
  while (max ? v > old : v < old) {
    T prev = hg_atomic_cas_bits(p, old, v);
    if (hg_to_bits(prev) == hg_to_bits(old)) break;
    old = prev;
  }
  return old;
}
HG_DEV float hg_atomic_min(float* p, float v) { return hg_atomic_minmax_f(p, v, false); }
HG_DEV double hg_atomic_min(double* p, double v) { return hg_atomic_minmax_f(p, v, false); }
HG_DEV float hg_atomic_max(float* p, float v) { return hg_atomic_minmax_f(p, v, true); }
HG_DEV double hg_atomic_max(double* p, double v) { return hg_atomic_minmax_f(p, v, true); }
template <class T> HG_DEV T hg_atomic_min(T* p, T v) { return hg_atomic_min_int(p, v); }
template <class T> HG_DEV T hg_atomic_max(T* p, T v) { return hg_atomic_max_int(p, v); }
`
