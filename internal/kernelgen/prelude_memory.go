package kernelgen

// memoryPrelude is the fences and the atomics with a memory order and a
// scope (kernel.ThreadFence, AtomicLoad, AtomicStore, Atomic*Scoped),
// written where a kernel uses them. O is a kernel.Order (0 relaxed, 1
// acquire, 2 release, 3 acq_rel, 4 seq_cst) and S a kernel.Scope (0 block,
// 1 device, 2 system). AMD: HIP's scoped atomic builtins and
// __builtin_amdgcn_fence, what HIP's own headers use. NVIDIA (clang and
// NVRTC alike): PTX's scoped and ordered ld, st, atom and fence, sm_70 and
// later, the standard mapping of C++'s orders onto PTX (a seq_cst access
// is fence.sc then the acquire or release form).
const memoryPrelude = `// ---- memory orders and scopes ----

#if defined(HG_AMD)
HG_DEV void hg_fence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
HG_DEV void hg_fence_device() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
HG_DEV void hg_fence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }
#define HG_ORD(O) ((O) == 0 ? __ATOMIC_RELAXED : (O) == 1 ? __ATOMIC_ACQUIRE : (O) == 2 ? __ATOMIC_RELEASE : (O) == 3 ? __ATOMIC_ACQ_REL : __ATOMIC_SEQ_CST)
// A failed compare-exchange only reads: release drops out of its order.
#define HG_FAIL_ORD(O) ((O) == 2 ? __ATOMIC_RELAXED : (O) == 3 ? __ATOMIC_ACQUIRE : HG_ORD(O))
#define HG_SCO(S) ((S) == 0 ? __HIP_MEMORY_SCOPE_WORKGROUP : (S) == 1 ? __HIP_MEMORY_SCOPE_AGENT : __HIP_MEMORY_SCOPE_SYSTEM)
template <int O, int S, class T> HG_DEV T hg_atomic_load(T* p) {
  typedef typename hg_bits<T>::type B;
  return hg_from_bits<T>(__hip_atomic_load((B*)p, HG_ORD(O), HG_SCO(S)));
}
template <int O, int S, class T> HG_DEV void hg_atomic_store(T* p, T v) {
  typedef typename hg_bits<T>::type B;
  __hip_atomic_store((B*)p, hg_to_bits(v), HG_ORD(O), HG_SCO(S));
}
template <int O, int S, class T> HG_DEV T hg_atomic_add_s(T* p, T v) { return __hip_atomic_fetch_add(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_min_s(T* p, T v) { return __hip_atomic_fetch_min(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_max_s(T* p, T v) { return __hip_atomic_fetch_max(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_and_s(T* p, T v) { return __hip_atomic_fetch_and(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_or_s(T* p, T v) { return __hip_atomic_fetch_or(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_xor_s(T* p, T v) { return __hip_atomic_fetch_xor(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_exch_s(T* p, T v) { return __hip_atomic_exchange(p, v, HG_ORD(O), HG_SCO(S)); }
template <int O, int S, class T> HG_DEV T hg_atomic_cas_s(T* p, T cmp, T v) {
  __hip_atomic_compare_exchange_strong(p, &cmp, v, HG_ORD(O), HG_FAIL_ORD(O), HG_SCO(S));
  return cmp;
}
#undef HG_ORD
#undef HG_FAIL_ORD
#undef HG_SCO
#else
HG_DEV void hg_fence_block() { asm volatile("fence.sc.cta;" ::: "memory"); }
HG_DEV void hg_fence_device() { asm volatile("fence.sc.gpu;" ::: "memory"); }
HG_DEV void hg_fence_system() { asm volatile("fence.sc.sys;" ::: "memory"); }
template <int S> HG_DEV void hg_fence_sc() {
  if (S == 0) hg_fence_block();
  else if (S == 1) hg_fence_device();
  else hg_fence_system();
}
// One PTX instruction at the scope S: A ".cta" B, ".gpu" or ".sys".
#define HG_PTX3(S, A, B, ...)                                                  \
  do {                                                                         \
    if ((S) == 0) asm volatile(A ".cta" B : __VA_ARGS__ : "memory");           \
    else if ((S) == 1) asm volatile(A ".gpu" B : __VA_ARGS__ : "memory");      \
    else asm volatile(A ".sys" B : __VA_ARGS__ : "memory");                    \
  } while (0)
#define HG_PTX_LDST(B, W, C)                                                   \
  template <int O, int S> HG_DEV B hg_ld_bits(const B* p) {                    \
    B r;                                                                       \
    if (O == 4) hg_fence_sc<S>();                                              \
    if (O == 0) HG_PTX3(S, "ld.relaxed", ".b" W " %0, [%1];", "=" C(r) : "l"(p)); \
    else HG_PTX3(S, "ld.acquire", ".b" W " %0, [%1];", "=" C(r) : "l"(p));    \
    return r;                                                                  \
  }                                                                            \
  template <int O, int S> HG_DEV void hg_st_bits(B* p, B v) {                  \
    if (O == 4) hg_fence_sc<S>();                                              \
    if (O == 2) HG_PTX3(S, "st.release", ".b" W " [%0], %1;", : "l"(p), C(v)); \
    else HG_PTX3(S, "st.relaxed", ".b" W " [%0], %1;", : "l"(p), C(v));       \
  }
HG_PTX_LDST(unsigned, "32", "r")
HG_PTX_LDST(unsigned long long, "64", "l")
#define HG_PTX_RMW(NAME, OP, B, C)                                             \
  template <int O, int S> HG_DEV B NAME(B* p, B v) {                           \
    B r;                                                                       \
    if (O == 4) hg_fence_sc<S>();                                              \
    if (O == 0) HG_PTX3(S, "atom.relaxed", OP " %0, [%1], %2;", "=" C(r) : "l"(p), C(v)); \
    else if (O == 1) HG_PTX3(S, "atom.acquire", OP " %0, [%1], %2;", "=" C(r) : "l"(p), C(v)); \
    else if (O == 2) HG_PTX3(S, "atom.release", OP " %0, [%1], %2;", "=" C(r) : "l"(p), C(v)); \
    else HG_PTX3(S, "atom.acq_rel", OP " %0, [%1], %2;", "=" C(r) : "l"(p), C(v)); \
    return r;                                                                  \
  }
HG_PTX_RMW(hg_ptx_add, ".add.u32", unsigned, "r")
HG_PTX_RMW(hg_ptx_add, ".add.u64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_and, ".and.b32", unsigned, "r")
HG_PTX_RMW(hg_ptx_and, ".and.b64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_or, ".or.b32", unsigned, "r")
HG_PTX_RMW(hg_ptx_or, ".or.b64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_xor, ".xor.b32", unsigned, "r")
HG_PTX_RMW(hg_ptx_xor, ".xor.b64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_exch, ".exch.b32", unsigned, "r")
HG_PTX_RMW(hg_ptx_exch, ".exch.b64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_min, ".min.s32", int, "r")
HG_PTX_RMW(hg_ptx_min, ".min.u32", unsigned, "r")
HG_PTX_RMW(hg_ptx_min, ".min.s64", long long, "l")
HG_PTX_RMW(hg_ptx_min, ".min.u64", unsigned long long, "l")
HG_PTX_RMW(hg_ptx_max, ".max.s32", int, "r")
HG_PTX_RMW(hg_ptx_max, ".max.u32", unsigned, "r")
HG_PTX_RMW(hg_ptx_max, ".max.s64", long long, "l")
HG_PTX_RMW(hg_ptx_max, ".max.u64", unsigned long long, "l")
#define HG_PTX_CAS(B, W, C)                                                    \
  template <int O, int S> HG_DEV B hg_ptx_cas(B* p, B c, B v) {                \
    B r;                                                                       \
    if (O == 4) hg_fence_sc<S>();                                              \
    if (O == 0) HG_PTX3(S, "atom.relaxed", ".cas.b" W " %0, [%1], %2, %3;", "=" C(r) : "l"(p), C(c), C(v)); \
    else if (O == 1) HG_PTX3(S, "atom.acquire", ".cas.b" W " %0, [%1], %2, %3;", "=" C(r) : "l"(p), C(c), C(v)); \
    else if (O == 2) HG_PTX3(S, "atom.release", ".cas.b" W " %0, [%1], %2, %3;", "=" C(r) : "l"(p), C(c), C(v)); \
    else HG_PTX3(S, "atom.acq_rel", ".cas.b" W " %0, [%1], %2, %3;", "=" C(r) : "l"(p), C(c), C(v)); \
    return r;                                                                  \
  }
HG_PTX_CAS(unsigned, "32", "r")
HG_PTX_CAS(unsigned long long, "64", "l")
#undef HG_PTX_LDST
#undef HG_PTX_RMW
#undef HG_PTX_CAS
#undef HG_PTX3
template <int O, int S, class T> HG_DEV T hg_atomic_load(T* p) {
  typedef typename hg_bits<T>::type B;
  return hg_from_bits<T>(hg_ld_bits<O, S>((const B*)p));
}
template <int O, int S, class T> HG_DEV void hg_atomic_store(T* p, T v) {
  typedef typename hg_bits<T>::type B;
  hg_st_bits<O, S>((B*)p, hg_to_bits(v));
}
template <int O, int S, class T> HG_DEV T hg_atomic_add_s(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_add<O, S>((B*)p, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_and_s(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_and<O, S>((B*)p, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_or_s(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_or<O, S>((B*)p, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_xor_s(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_xor<O, S>((B*)p, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_exch_s(T* p, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_exch<O, S>((B*)p, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_cas_s(T* p, T c, T v) { typedef typename hg_bits<T>::type B; return (T)hg_ptx_cas<O, S>((B*)p, (B)c, (B)v); }
template <int O, int S, class T> HG_DEV T hg_atomic_min_s(T* p, T v) { return hg_ptx_min<O, S>(p, v); }
template <int O, int S, class T> HG_DEV T hg_atomic_max_s(T* p, T v) { return hg_ptx_max<O, S>(p, v); }
#endif
template <int O, int S, class T> HG_DEV T hg_atomic_sub_s(T* p, T v) { return hg_atomic_add_s<O, S>(p, hg_neg(v)); }
// kernel.OrderedBlockID: a ticket per block, in the order the blocks
// started. The __shared__ cell is the function's own (one per block).
HG_DEV long long hg_ordered_block_id(unsigned* counter) {
  __shared__ unsigned hg_ticket;
  if (hg_tid_x() == 0 && hg_tid_y() == 0 && hg_tid_z() == 0) hg_ticket = hg_atomic_add_s<0, 1>(counter, 1u);
  hg_sync_threads();
  unsigned id = hg_ticket;
  hg_sync_threads();
  return id;
}

`

// bigRefPrelude is hg_ref_big, hg_ref for an element larger than the
// scratch cell (a row of a 2-D array as the base of a write, s[i][j] =
// v): a failed index gives a cell of the element's own type, so the
// write that follows touches nothing in bounds or out of them. Written
// where a kernel uses it.
const bigRefPrelude = `// ---- places of elements larger than the scratch cell ----

template <class T> static __device__ __attribute__((unused)) T hg_scratch_big;
template <bool C, class T> HG_DEV T& hg_ref_big(hg_slice<T> s, long long i, hg_fault* f, unsigned line, unsigned file) {
  if (C && HG_UNLIKELY((unsigned long long)i >= (unsigned long long)s.n)) {
    hg_fail(f, 1, line, file, i, s.n);
    return hg_scratch_big<T>;
  }
  return s.p[i];
}
template <bool C, class T, long long N> HG_DEV T& hg_ref_big(hg_array<T, N>& a, long long i, hg_fault* f, unsigned line, unsigned file) {
  if (C && HG_UNLIKELY((unsigned long long)i >= (unsigned long long)N)) {
    hg_fail(f, 1, line, file, i, N);
    return hg_scratch_big<T>;
  }
  return a.v[i];
}

`

// vectorPrelude is kernel.Load4/Load2 and Store4/Store2, written where a
// kernel uses them.
const vectorPrelude = `// ---- 16-byte vector loads and stores ----

// kernel.Load4/Load2 and Store4/Store2: N elements from s.p + i*N as one
// 16-byte access; an index out of range is s[i*N+N-1]'s fault.
template <class T, int N> struct __attribute__((aligned(sizeof(T) * N))) hg_vec { T v[N]; };
template <bool C, int N, class T> HG_DEV hg_array<typename hg_unconst<T>::type, N> hg_ldv(hg_slice<T> s, long long i, hg_fault* f, unsigned line, unsigned file) {
  typedef typename hg_unconst<T>::type U;
  hg_array<U, N> a;
  if (C && HG_UNLIKELY((unsigned long long)i >= (unsigned long long)(s.n / N))) {
    hg_fail(f, 1, line, file, hg_add(hg_mul(i, (long long)N), (long long)N - 1), s.n);
    return {};
  }
  hg_vec<U, N> w = *(const hg_vec<U, N>*)(s.p + i * N);
  for (int k = 0; k < N; k++) a.v[k] = w.v[k];
  return a;
}
template <bool C, int N, class T> HG_DEV void hg_stv(hg_slice<T> s, long long i, hg_array<T, N> a, hg_fault* f, unsigned line, unsigned file) {
  if (C && HG_UNLIKELY((unsigned long long)i >= (unsigned long long)(s.n / N))) {
    hg_fail(f, 1, line, file, hg_add(hg_mul(i, (long long)N), (long long)N - 1), s.n);
    return;
  }
  hg_vec<T, N> w;
  for (int k = 0; k < N; k++) w.v[k] = a.v[k];
  *(hg_vec<T, N>*)(s.p + i * N) = w;
}

`
