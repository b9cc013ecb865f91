// Package kernelgen translates Go kernels, functions written per work-item
// in a documented subset of Go, into CUDA/HIP C++; its sub-package goback
// writes the Go side from the Result (argument layouts, the cpu agent's
// functions with loop fission, typed launchers), and cpplaunch the
// launchers of kernels written in C++. hipgo-gen is the command around
// them: flags, files and clang.
//
// Load reads a package with golang.org/x/tools/go/packages; Options.Translate
// turns every top-level function marked //hipgo:kernel, whose first
// parameter is a kernel.Thread, into two extern "C" entry points, NAME and
// NAME_checked (NAME the Go name in snake case), over one
// `template <bool Checked>` body: the unchecked variant has no checks at
// all, the checked one records the first index, slice-bound, division or
// shift failure in the trailing hg_fault* and carries on with a safe value
// (reads give zero, a write to a failed place is dropped; an atomic's goes
// to a sink cell). Each work-item keeps its first failure in a record of
// its own (registers) that the entry point publishes when the body
// returns, so a check repeated after a passed one costs nothing. The functions kernels
// call, transitively, become always-inlined __device__ templates (HG_DEV: as nvcc, which inlines them; a call on NVPTX passes slices through local memory and loses the global address space); generic ones are
// instantiated per type argument. The output is one self-contained unit
// (no #include) that compiles with clang-19 -x hip or -x cuda offline, with
// hipRTC and with NVRTC, with `#line` directives naming the Go lines.
//
// The entry points keep a C kernel's signature where they can. A slice
// parameter whose length the kernel never reads (Param.Len: no len, cap,
// range, s[lo:] or s[:], nor a device function that reads it through its
// parameter) is a bare pointer; the checked variant takes its length
// after all the others. hg_dyn_bytes, the dynamic shared memory's size,
// is a parameter of the plain variant only where the kernel reads that
// memory's length (Kernel.DynamicSharedLen). So the parameters are, in
// order:
//
//	NAME:         user parameters (T* x_p, long long x_n where Len), [hg_dyn_bytes where DynamicSharedLen]
//	NAME_checked: user parameters (the same), [hg_dyn_bytes where DynamicShared], long long x_n for each slice not Len, hg_fault* hg_f
//
// vector_add(const float* a, const float* b, float* c, int n) and
// reduce_sum(const float* in, float* out, int n) over extern __shared__
// memory stay what C programs and LaunchKernelGGL call.
//
// The subset:
//
//	Go                                    C++
//	int8..int64, uint8..uint64            int8_t..int64_t, uint8_t..uint64_t (typedefs in the prelude)
//	int, uint (64 bits, as in Go)         long long, unsigned long long
//	float32, float64, bool                float, double, bool
//	package struct type                   struct of the same name, fields in order
//	[N]T                                  hg_array<T, N> (a value: assignment copies)
//	[]T                                   hg_slice<T> {T* p; long long n, c;}, hg_slice<const T> when never written
//	kernel parameter []T                  T* x_p (const T* when ReadOnly), long long x_n where the length is read (above)
//	kernel.Dim                            hg_dim {long long X, Y, Z;}
//	var x T; x := e; x = e; a, b = b, a   T x = {}; T x = e; x = e; through temporaries
//	x op= e, x++, x--                     native where C++ computes Go's result, else x = hg_add(x, e) ...
//	+ - * on signed or narrow integers    hg_add, hg_sub, hg_mul, hg_neg: wrap through the unsigned type
//	/ %                                   hg_div, hg_rem: by zero a fault (checked) or 0; MinInt/-1 = MinInt
//	<< >> (variable count)                hg_shl, hg_shr: count >= width gives 0 or the sign; negative a fault
//	&^, unary ^                           & ~, ~ (narrow types cut back to their width)
//	float operators                       native (the Go spec allows FMA contraction)
//	constants                             folded (go/constant), exact literals: 1.5f, 7LL, 3U
//	if/else, for (three forms), for i := range n, for i, v := range slice/array
//	                                      if, for, while; range over a copy of the bound
//	switch (tagged, tagless), no fallthrough   an if/else chain on a temporary
//	break, continue, labels               break/continue, or goto hg_break_N / hg_continue_N
//	return                                return
//	s[i], a[i], p[i] (p *[N]T)            hg_ld<Checked> (a read), hg_at<Checked> (a place written or an atomic's, via hg_ptr), hg_ref<Checked> (other places); constant array index direct
//	s[lo:hi], a[lo:hi]                    hg_sub<Checked>
//	len(s), cap(s), min, max              s.n, s.c, hg_min, hg_max
//	T(x)                                  (T)(x)
//	Struct{...}, [N]T{...}                aggregate initialisation
//	t.ThreadIdx/BlockIdx/BlockDim/GridDim (X/Y/Z)   hg_tid_x() ... (builtins offline, threadIdx... under RTC)
//	t.GlobalX/Y/Z, t.Lane, t.WarpSize     hg_global_x(), hg_lane(), hg_warp_size() (32, or the wavefront)
//	t.SyncThreads, t.SyncWarp             hg_sync_threads(), hg_sync_warp()
//	kernel.Shared[T](t) (kernel top level)    __shared__ T hg_shared_x; T* x = &hg_shared_x;
//	kernel.DynamicShared[T](t)            extern __shared__ bytes viewed as hg_dyn_bytes / sizeof(T) elements
//	                                      (a device function that reaches it takes hg_dyn_bytes before hg_f)
//	kernel.Shfl, ShflDown, ShflUp, ShflXor    hg_shfl*: 32-bit shuffles, 64-bit values as two halves
//	kernel.Ballot, Any, All               hg_ballot (a 64-bit mask), hg_any, hg_all
//	kernel.ShflSync ... (mask, width), BallotSync ..., SyncWarpMask   hg_shfl_sync ... (warpPrelude, where used)
//	kernel.ReduceAddSync ... ReduceXorSync    hg_reduce_add_sync ...: redux.sync on sm_80, else a butterfly or a fold
//	a warp operation without a mask       refused under lane-dependent control flow (diverge.go)
//	kernel.Atomic* (&s[i], &shared[i], p) hg_atomic_*: __hip_atomic_* / __atomic_* / atomicAdd ... (relaxed, device scope)
//	kernel.ThreadFence, ThreadFenceBlock/System   hg_fence_device/block/system() (memoryPrelude, where used)
//	kernel.AtomicLoad/Store(p, ..., o, s)  hg_atomic_load<O, S>(p) ...: PTX ld.acquire.gpu ... / __hip_atomic_load
//	kernel.Atomic*Scoped(p, ..., o, s)    hg_atomic_add_s<O, S>(p, v) ...: PTX atom.acq_rel.gpu ... / __hip_atomic_*
//	kernel.Load4/Store4, Load2/Store2     hg_ldv<Checked, 4>(s, i, ...): one 16-byte access (vectorPrelude)
//	kernel.OrderedBlockID(t, &c[0])       hg_ordered_block_id(p): a ticket through a __shared__ cell, two barriers
//	kernel.Sqrt ... Fma, math.Sqrt ... FMA    hg_sqrt ... (the vendor library under RTC; builtins offline)
//	math.Float32bits ... Float64frombits  hg_f32_bits ...
//	package-level function, generic one   template <bool Checked, class T> HG_DEV (kernel.Thread erased)
//	generic kernel (//hipgo:instantiate)   the same template; entry points NAME_float32 ... per instance (instantiate.go)
//	//hipgo:kernel maxthreads=N minblocks=M   __launch_bounds__(N, M) on both entry points
//	//hipgo:constant var c [4]float32     __constant__ hg_array<float, 4> c; (//hipgo:device: __device__), read by name
//	//hipgo:unroll above a for statement  #pragma unroll before its header (unroll.go)
//
// Outside the subset, and an error naming the construct at file:line:col:
// allocation (make, new, append, slice and map literals), maps,
// interfaces, closures, goroutines, channels, select, defer, panic,
// strings, goto, fallthrough, method values, methods with pointer
// receivers or of generic or slice types, calls to
// packages other than kernel and math, recursion, more than four results
// and several results passed straight as arguments (f(g())), pointers
// other than kernel.Shared's, package-level variables not marked
// //hipgo:constant or //hipgo:device (see globals.go), a write to a
// //hipgo:constant one. A device function
// of two to four results returns an hg_tupleN that the assignment of its
// call unpacks. A method with a value receiver of a named type is a
// device function Type_Method whose first parameter is the receiver.
//
// Offline builds have no vendor device library: on NVPTX, exp, log, sin,
// cos, tanh and pow of float32 are PTX approximations (see mathFns), and
// the float64 transcendental functions, on NVPTX and AMDGPU, are an
// #error naming the function and the runtime compiler that has it; they
// are emitted only where a kernel uses them. Float-to-integer conversion
// of an out-of-range value is the target's (Go leaves it to the
// implementation too).
//
// Options.Translate is safe to call from several goroutines on different
// packages.
package kernelgen
