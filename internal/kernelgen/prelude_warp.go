package kernelgen

// warpPrelude is the warp operations with a mask and a width
// (kernel.ShflSync ..., BallotSync, AnySync, AllSync, SyncWarpMask) and the
// warp reductions (kernel.ReduceAddSync ...), written where a kernel uses
// them. A shuffle names its source lane by CUDA's rules (src modulo width;
// up, down and xor stay in the caller's width-lane section, xor may read
// an earlier one); where the rules give no lane, the caller's own value,
// as on the cpu agent. NVIDIA: shfl.sync with the mask and the width in
// its clamp operand; AMD (no masks in hardware: the lanes that execute are
// the mask): ds_bpermute from the lane computed. A reduction over the full
// warp is a butterfly (k = warp/2 ... 1: v = op(v, lane^k's v)), over part
// of it a fold in lane order, so each agent gives the cpu agent's bits;
// 32-bit integers on sm_80 and later use redux.sync (__reduce_*_sync),
// whose result no order changes.
const warpPrelude = `// ---- warp operations with a mask and a width ----

#if defined(HG_AMD)
HG_DEV unsigned hg_lane_read32(unsigned long long m, unsigned v, int j) {
  (void)m;
  return (unsigned)__builtin_amdgcn_ds_bpermute(j << 2, (int)v);
}
HG_DEV unsigned long long hg_ballot_sync(unsigned long long m, bool p) { return hg_ballot(p) & m; }
HG_DEV void hg_sync_warp_mask(unsigned long long m) {
  (void)m;
  __builtin_amdgcn_wave_barrier();
}
#elif defined(HG_NVPTX)
HG_DEV unsigned hg_lane_read32(unsigned long long m, unsigned v, int j) { return (unsigned)__nvvm_shfl_sync_idx_i32((unsigned)m, (int)v, j, 0x1f); }
// mode 0 idx, 1 up, 2 down, 3 xor; the clamp operand carries the width.
HG_DEV unsigned hg_nv_shfl32(int mode, unsigned long long m, unsigned v, int b, int w) {
  int seg = (32 - w) << 8;
  switch (mode) {
  case 0: return (unsigned)__nvvm_shfl_sync_idx_i32((unsigned)m, (int)v, b, seg | 0x1f);
  case 1: return (unsigned)__nvvm_shfl_sync_up_i32((unsigned)m, (int)v, b, seg);
  case 2: return (unsigned)__nvvm_shfl_sync_down_i32((unsigned)m, (int)v, b, seg | 0x1f);
  default: return (unsigned)__nvvm_shfl_sync_bfly_i32((unsigned)m, (int)v, b, seg | 0x1f);
  }
}
HG_DEV unsigned long long hg_ballot_sync(unsigned long long m, bool p) { return __nvvm_vote_ballot_sync((unsigned)m, p) & m; }
HG_DEV void hg_sync_warp_mask(unsigned long long m) { __nvvm_bar_warp_sync((unsigned)m); }
#else
HG_DEV unsigned hg_lane_read32(unsigned long long m, unsigned v, int j) { return __shfl_sync((unsigned)m, v, j); }
HG_DEV unsigned hg_nv_shfl32(int mode, unsigned long long m, unsigned v, int b, int w) {
  switch (mode) {
  case 0: return __shfl_sync((unsigned)m, v, b, w);
  case 1: return __shfl_up_sync((unsigned)m, v, (unsigned)b, w);
  case 2: return __shfl_down_sync((unsigned)m, v, (unsigned)b, w);
  default: return __shfl_xor_sync((unsigned)m, v, b, w);
  }
}
HG_DEV unsigned long long hg_ballot_sync(unsigned long long m, bool p) { return __ballot_sync((unsigned)m, p) & m; }
HG_DEV void hg_sync_warp_mask(unsigned long long m) { __syncwarp((unsigned)m); }
#endif
HG_DEV bool hg_any_sync(unsigned long long m, bool p) { return hg_ballot_sync(m, p) != 0; }
HG_DEV bool hg_all_sync(unsigned long long m, bool p) { return hg_ballot_sync(m, !p) == 0; }
HG_DEV unsigned hg_lane_read(unsigned long long m, unsigned v, int j) { return hg_lane_read32(m, v, j); }
HG_DEV unsigned long long hg_lane_read(unsigned long long m, unsigned long long v, int j) {
  unsigned lo = hg_lane_read32(m, (unsigned)v, j), hi = hg_lane_read32(m, (unsigned)(v >> 32), j);
  return ((unsigned long long)hi << 32) | lo;
}
// Lane j's v where ok, else the caller's own; every lane of the mask
// reads, so each takes part.
template <class T> HG_DEV T hg_read_lane(unsigned long long m, T v, long long j, bool ok) {
  T got = hg_from_bits<T>(hg_lane_read(m, hg_to_bits(v), ok ? (int)j : (int)hg_lane()));
  return ok ? got : v;
}
#if defined(HG_NVPTX) || defined(HG_NVRTC)
HG_DEV unsigned hg_nv_shfl(int mode, unsigned long long m, unsigned v, int b, int w) { return hg_nv_shfl32(mode, m, v, b, w); }
HG_DEV unsigned long long hg_nv_shfl(int mode, unsigned long long m, unsigned long long v, int b, int w) {
  unsigned lo = hg_nv_shfl32(mode, m, (unsigned)v, b, w), hi = hg_nv_shfl32(mode, m, (unsigned)(v >> 32), b, w);
  return ((unsigned long long)hi << 32) | lo;
}
template <class T> HG_DEV T hg_nv_shfl_t(int mode, unsigned long long m, T v, long long b, long long w) {
  return hg_from_bits<T>(hg_nv_shfl(mode, m, hg_to_bits(v), (int)b, (int)w));
}
#define HG_NV_SHFL 1
#else
#define HG_NV_SHFL 0
template <class T> HG_DEV T hg_nv_shfl_t(int, unsigned long long, T v, long long, long long) { return v; }
#endif
template <class T> HG_DEV T hg_shfl_sync(unsigned long long m, T v, long long src, long long w) {
  if (HG_NV_SHFL) return hg_nv_shfl_t(0, m, v, src, w);
  long long l = hg_lane();
  return hg_read_lane(m, v, (l & ~(w - 1)) | (src & (w - 1)), true);
}
template <class T> HG_DEV T hg_shfl_up_sync(unsigned long long m, T v, long long d, long long w) {
  if (HG_NV_SHFL && d >= 0 && d < 32) return hg_nv_shfl_t(1, m, v, d, w);
  long long l = hg_lane(), j = l - d;
  return hg_read_lane(m, v, j, d >= 0 && j >= (l & ~(w - 1)));
}
template <class T> HG_DEV T hg_shfl_down_sync(unsigned long long m, T v, long long d, long long w) {
  if (HG_NV_SHFL && d >= 0 && d < 32) return hg_nv_shfl_t(2, m, v, d, w);
  long long l = hg_lane(), j = l + d;
  return hg_read_lane(m, v, j, d >= 0 && j < (l & ~(w - 1)) + w);
}
template <class T> HG_DEV T hg_shfl_xor_sync(unsigned long long m, T v, long long x, long long w) {
  if (HG_NV_SHFL && x >= 0 && x < 32) return hg_nv_shfl_t(3, m, v, x, w);
  long long l = hg_lane(), j = l ^ x;
  return hg_read_lane(m, v, j, j >= 0 && j < (l & ~(w - 1)) + w);
}
#undef HG_NV_SHFL

// ---- warp reductions ----

struct hg_op_add { template <class T> HG_DEV T operator()(T a, T b) const { return hg_add(a, b); } };
struct hg_op_min { template <class T> HG_DEV T operator()(T a, T b) const { return hg_min(a, b); } };
struct hg_op_max { template <class T> HG_DEV T operator()(T a, T b) const { return hg_max(a, b); } };
struct hg_op_and { template <class T> HG_DEV T operator()(T a, T b) const { return (T)(a & b); } };
struct hg_op_or { template <class T> HG_DEV T operator()(T a, T b) const { return (T)(a | b); } };
struct hg_op_xor { template <class T> HG_DEV T operator()(T a, T b) const { return (T)(a ^ b); } };
template <class T, class Op> HG_DEV T hg_reduce_shfl(unsigned long long m, T v, Op op) {
  long long ws = hg_warp_size();
  unsigned long long full = ws == 64 ? ~0ULL : 0xffffffffULL;
  if ((m & full) == full) {
    for (long long k = ws / 2; k > 0; k >>= 1) v = op(v, hg_shfl_xor_sync(m, v, k, ws));
    return v;
  }
  T r = v;
  bool first = true;
  for (long long j = 0; j < ws; j++) {
    if (!((m >> j) & 1)) continue;
    T x = hg_shfl_sync(m, v, j, ws);
    r = first ? x : op(r, x);
    first = false;
  }
  return r;
}
#if (defined(HG_NVPTX) || defined(HG_NVRTC)) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#if defined(HG_NVPTX)
HG_DEV int hg_reduce_add_sync(unsigned long long m, int v) { return __nvvm_redux_sync_add(v, (int)m); }
HG_DEV unsigned hg_reduce_add_sync(unsigned long long m, unsigned v) { return (unsigned)__nvvm_redux_sync_add((int)v, (int)m); }
HG_DEV int hg_reduce_min_sync(unsigned long long m, int v) { return __nvvm_redux_sync_min(v, (int)m); }
HG_DEV unsigned hg_reduce_min_sync(unsigned long long m, unsigned v) { return __nvvm_redux_sync_umin(v, (int)m); }
HG_DEV int hg_reduce_max_sync(unsigned long long m, int v) { return __nvvm_redux_sync_max(v, (int)m); }
HG_DEV unsigned hg_reduce_max_sync(unsigned long long m, unsigned v) { return __nvvm_redux_sync_umax(v, (int)m); }
HG_DEV int hg_reduce_and_sync(unsigned long long m, int v) { return __nvvm_redux_sync_and(v, (int)m); }
HG_DEV unsigned hg_reduce_and_sync(unsigned long long m, unsigned v) { return (unsigned)__nvvm_redux_sync_and((int)v, (int)m); }
HG_DEV int hg_reduce_or_sync(unsigned long long m, int v) { return __nvvm_redux_sync_or(v, (int)m); }
HG_DEV unsigned hg_reduce_or_sync(unsigned long long m, unsigned v) { return (unsigned)__nvvm_redux_sync_or((int)v, (int)m); }
HG_DEV int hg_reduce_xor_sync(unsigned long long m, int v) { return __nvvm_redux_sync_xor(v, (int)m); }
HG_DEV unsigned hg_reduce_xor_sync(unsigned long long m, unsigned v) { return (unsigned)__nvvm_redux_sync_xor((int)v, (int)m); }
#else
HG_DEV int hg_reduce_add_sync(unsigned long long m, int v) { return __reduce_add_sync((unsigned)m, v); }
HG_DEV unsigned hg_reduce_add_sync(unsigned long long m, unsigned v) { return __reduce_add_sync((unsigned)m, v); }
HG_DEV int hg_reduce_min_sync(unsigned long long m, int v) { return __reduce_min_sync((unsigned)m, v); }
HG_DEV unsigned hg_reduce_min_sync(unsigned long long m, unsigned v) { return __reduce_min_sync((unsigned)m, v); }
HG_DEV int hg_reduce_max_sync(unsigned long long m, int v) { return __reduce_max_sync((unsigned)m, v); }
HG_DEV unsigned hg_reduce_max_sync(unsigned long long m, unsigned v) { return __reduce_max_sync((unsigned)m, v); }
HG_DEV int hg_reduce_and_sync(unsigned long long m, int v) { return (int)__reduce_and_sync((unsigned)m, (unsigned)v); }
HG_DEV unsigned hg_reduce_and_sync(unsigned long long m, unsigned v) { return __reduce_and_sync((unsigned)m, v); }
HG_DEV int hg_reduce_or_sync(unsigned long long m, int v) { return (int)__reduce_or_sync((unsigned)m, (unsigned)v); }
HG_DEV unsigned hg_reduce_or_sync(unsigned long long m, unsigned v) { return __reduce_or_sync((unsigned)m, v); }
HG_DEV int hg_reduce_xor_sync(unsigned long long m, int v) { return (int)__reduce_xor_sync((unsigned)m, (unsigned)v); }
HG_DEV unsigned hg_reduce_xor_sync(unsigned long long m, unsigned v) { return __reduce_xor_sync((unsigned)m, v); }
#endif
#endif
template <class T> HG_DEV T hg_reduce_add_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_add()); }
template <class T> HG_DEV T hg_reduce_min_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_min()); }
template <class T> HG_DEV T hg_reduce_max_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_max()); }
template <class T> HG_DEV T hg_reduce_and_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_and()); }
template <class T> HG_DEV T hg_reduce_or_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_or()); }
template <class T> HG_DEV T hg_reduce_xor_sync(unsigned long long m, T v) { return hg_reduce_shfl(m, v, hg_op_xor()); }

`
