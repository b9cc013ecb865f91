package kernelgen

// The kernel SDK (package rocr/kernel) as the translator knows it: one
// row per function or kernel.Thread method a kernel may call, read by
// every pass: analysis (what makes a function lockstep), divergence (what
// differs between lanes), counted loops (what is loop-invariant), the C++
// back end (its spelling) and the Go back end (where fission splits, what
// needs coroutines). A call of the SDK that has no row is refused where it
// is translated, naming the call.

// SDKCall is one row of the table.
type SDKCall struct {
	Name   string      // the Go name: a function of package kernel, or a kernel.Thread method (Thread)
	Thread bool        // a method of kernel.Thread
	CPP    string      // the C++ helper; Form says how its arguments are spelled
	Form   callForm    // how the C++ call is written
	Lanes  laneClass   // whether the result differs between the lanes of a warp
	CPU    cpuMeaning  // what the cpu agent's Go back end makes of it
	Mask   bool        // a warp operation that takes a mask (the full-warp forms must stand where every lane reaches them)
	Fixed  bool        // no arguments and the same in every iteration of a loop (ThreadIdx, GridDim, ...)
	Dim    string      // a Dim3 method's component helpers: t.ThreadIdx().X is hg_tid_x()
	uses   preludePart // the prelude section the call needs
}

// Warp reports whether the call is a warp operation: the work-items of a
// warp exchange values or wait for each other there.
func (c SDKCall) Warp() bool { return c.CPU == cpuWarp }

// Lockstep reports whether the call makes the function that makes it
// lockstep: a barrier, a warp operation or a call with barriers inside.
func (c SDKCall) Lockstep() bool { return c.CPU != cpuCall && c.CPU != cpuGroup }

// Barrier reports whether the call is the block-wide barrier, where loop
// fission splits a kernel.
func (c SDKCall) Barrier() bool { return c.CPU == cpuBarrier }

// Coroutines reports whether the cpu agent needs coroutines for a kernel
// that makes the call: loop fission does not split at it. (Fission runs
// a warp operation for each warp at once where it stands.)
func (c SDKCall) Coroutines() bool { return c.CPU == cpuBlockWide }

// Pure reports whether the call has no effect and cannot wait: a
// work-item's place (ThreadIdx, WarpSize...) or float math. Fission may
// evaluate it before or after a warp operation of the same statement.
func (c SDKCall) Pure() bool { return c.Fixed || c.Form == formMath }

// SameInBlock reports whether the call is a kernel.Thread method whose
// result is the same in every work-item of a block (BlockIdx, WarpSize).
func (c SDKCall) SameInBlock() bool {
	return c.Thread && (c.Lanes == lanesUniform || c.Lanes == lanesWarpSize)
}

// GroupMemory reports whether the call returns memory shared by the
// block's work-items (Shared, DynamicShared), taken once per group.
func (c SDKCall) GroupMemory() bool { return c.CPU == cpuGroup }

// callForm is how a call's C++ is written from its row's CPP.
type callForm uint8

const (
	formFixed          callForm = iota // CPP as it stands: hg_thread_idx()
	formShfl                           // CPP(v, (long long)lane)
	formVote                           // CPP(pred)
	formShflSync                       // CPP((unsigned long long)mask, v, (long long)lane, (long long)width)
	formMaskOp                         // CPP((unsigned long long)mask, v)
	formSyncWarpMask                   // CPP((unsigned long long)mask)
	formAtomic                         // CPP(&x, args...)
	formScopedAtomic                   // CPP<order, scope>(&x, args...); order and scope constants
	formLoadVec                        // hg_ldv<Checked, N>(s, i, loc)
	formStoreVec                       // hg_stv<Checked, N>(s, i, v, loc)
	formOrderedBlockID                 // CPP(&counter)
	formMath                           // the float helper for the argument's width
	formPrintf                         // printf with the format checked at generate time
	formShared                         // a declaration of its own (stmt.go), refused elsewhere
	formDynamicShared                  // a slice over the dynamic shared memory
)

// laneClass says how a call's result varies across the lanes of a warp.
type laneClass uint8

const (
	lanesVary     laneClass = iota // may differ from lane to lane
	lanesUniform                   // the same in every lane (that takes part)
	lanesWarpSize                  // the warp's size: a width that a mask may be built from
	lanesArgs                      // as uniform as its arguments (math)
	lanesTid                       // ThreadIdx: its X is the lane's index in the block
)

// cpuMeaning is what the Go back end makes of a call.
type cpuMeaning uint8

const (
	cpuCall      cpuMeaning = iota // an ordinary call in each work-item
	cpuBarrier                     // the block's work-items wait for each other: fission splits the kernel here
	cpuWarp                        // lanes exchange values or wait: each warp at once in fission (kernelimpl.Warp), else coroutines
	cpuBlockWide                   // waits inside (OrderedBlockID's barrier): coroutines
	cpuGroup                       // the block's shared memory: taken once per group
)

// preludePart is a section of the C++ prelude that a call needs.
type preludePart uint8

const (
	preludeCore preludePart = iota
	preludeWarp
	preludeMemory
	preludeVector
)

// sdkCalls is the table.
var sdkCalls = []SDKCall{
	// kernel.Thread: where a work-item is, and the block's barrier.
	{Name: "ThreadIdx", Thread: true, CPP: "hg_thread_idx()", Lanes: lanesTid, Fixed: true, Dim: "tid"},
	{Name: "BlockIdx", Thread: true, CPP: "hg_block_idx()", Lanes: lanesUniform, Fixed: true, Dim: "bid"},
	{Name: "BlockDim", Thread: true, CPP: "hg_block_dim()", Lanes: lanesUniform, Fixed: true, Dim: "bdim"},
	{Name: "GridDim", Thread: true, CPP: "hg_grid_dim()", Lanes: lanesUniform, Fixed: true, Dim: "gdim"},
	{Name: "GlobalX", Thread: true, CPP: "hg_global_x()", Fixed: true},
	{Name: "GlobalY", Thread: true, CPP: "hg_global_y()", Fixed: true},
	{Name: "GlobalZ", Thread: true, CPP: "hg_global_z()", Fixed: true},
	{Name: "WarpSize", Thread: true, CPP: "hg_warp_size()", Lanes: lanesWarpSize, Fixed: true},
	{Name: "Lane", Thread: true, CPP: "hg_lane()", Fixed: true},
	{Name: "SyncThreads", Thread: true, CPP: "hg_sync_threads()", CPU: cpuBarrier},
	{Name: "SyncWarp", Thread: true, CPP: "hg_sync_warp()", CPU: cpuWarp},

	// Memory shared by the block.
	{Name: "Shared", Form: formShared, CPU: cpuGroup},
	{Name: "DynamicShared", Form: formDynamicShared, CPU: cpuGroup},

	// Warp operations over the full warp.
	{Name: "Shfl", CPP: "hg_shfl", Form: formShfl, CPU: cpuWarp},
	{Name: "ShflDown", CPP: "hg_shfl_down", Form: formShfl, CPU: cpuWarp},
	{Name: "ShflUp", CPP: "hg_shfl_up", Form: formShfl, CPU: cpuWarp},
	{Name: "ShflXor", CPP: "hg_shfl_xor", Form: formShfl, CPU: cpuWarp},
	{Name: "Ballot", CPP: "hg_ballot", Form: formVote, Lanes: lanesUniform, CPU: cpuWarp},
	{Name: "Any", CPP: "hg_any", Form: formVote, Lanes: lanesUniform, CPU: cpuWarp},
	{Name: "All", CPP: "hg_all", Form: formVote, Lanes: lanesUniform, CPU: cpuWarp},

	// Warp operations over the lanes of a mask.
	{Name: "SyncWarpMask", CPP: "hg_sync_warp_mask", Form: formSyncWarpMask, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ShflSync", CPP: "hg_shfl_sync", Form: formShflSync, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ShflDownSync", CPP: "hg_shfl_down_sync", Form: formShflSync, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ShflUpSync", CPP: "hg_shfl_up_sync", Form: formShflSync, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ShflXorSync", CPP: "hg_shfl_xor_sync", Form: formShflSync, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "BallotSync", CPP: "hg_ballot_sync", Form: formMaskOp, Lanes: lanesUniform, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "AnySync", CPP: "hg_any_sync", Form: formMaskOp, Lanes: lanesUniform, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "AllSync", CPP: "hg_all_sync", Form: formMaskOp, Lanes: lanesUniform, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceAddSync", CPP: "hg_reduce_add_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceMinSync", CPP: "hg_reduce_min_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceMaxSync", CPP: "hg_reduce_max_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceAndSync", CPP: "hg_reduce_and_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceOrSync", CPP: "hg_reduce_or_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},
	{Name: "ReduceXorSync", CPP: "hg_reduce_xor_sync", Form: formMaskOp, CPU: cpuWarp, Mask: true, uses: preludeWarp},

	// Atomics (relaxed, device scope), and with an order and a scope.
	{Name: "AtomicAdd", CPP: "hg_atomic_add", Form: formAtomic},
	{Name: "AtomicSub", CPP: "hg_atomic_sub", Form: formAtomic},
	{Name: "AtomicMin", CPP: "hg_atomic_min", Form: formAtomic},
	{Name: "AtomicMax", CPP: "hg_atomic_max", Form: formAtomic},
	{Name: "AtomicExch", CPP: "hg_atomic_exch", Form: formAtomic},
	{Name: "AtomicCAS", CPP: "hg_atomic_cas", Form: formAtomic},
	{Name: "AtomicAnd", CPP: "hg_atomic_and", Form: formAtomic},
	{Name: "AtomicOr", CPP: "hg_atomic_or", Form: formAtomic},
	{Name: "AtomicXor", CPP: "hg_atomic_xor", Form: formAtomic},
	{Name: "AtomicLoad", CPP: "hg_atomic_load", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicStore", CPP: "hg_atomic_store", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicAddScoped", CPP: "hg_atomic_add_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicSubScoped", CPP: "hg_atomic_sub_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicExchScoped", CPP: "hg_atomic_exch_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicCASScoped", CPP: "hg_atomic_cas_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicMinScoped", CPP: "hg_atomic_min_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicMaxScoped", CPP: "hg_atomic_max_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicAndScoped", CPP: "hg_atomic_and_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicOrScoped", CPP: "hg_atomic_or_s", Form: formScopedAtomic, uses: preludeMemory},
	{Name: "AtomicXorScoped", CPP: "hg_atomic_xor_s", Form: formScopedAtomic, uses: preludeMemory},

	// Fences and the ordered block id.
	{Name: "ThreadFence", CPP: "hg_fence_device()", uses: preludeMemory},
	{Name: "ThreadFenceBlock", CPP: "hg_fence_block()", uses: preludeMemory},
	{Name: "ThreadFenceSystem", CPP: "hg_fence_system()", uses: preludeMemory},
	{Name: "OrderedBlockID", CPP: "hg_ordered_block_id", Form: formOrderedBlockID, CPU: cpuBlockWide, uses: preludeMemory},

	// Vector loads and stores.
	{Name: "Load2", CPP: "hg_ldv", Form: formLoadVec, uses: preludeVector},
	{Name: "Load4", CPP: "hg_ldv", Form: formLoadVec, uses: preludeVector},
	{Name: "Store2", CPP: "hg_stv", Form: formStoreVec, uses: preludeVector},
	{Name: "Store4", CPP: "hg_stv", Form: formStoreVec, uses: preludeVector},

	// Float math, the helper of the argument's width.
	{Name: "Sqrt", CPP: "sqrt", Form: formMath, Lanes: lanesArgs},
	{Name: "Rsqrt", CPP: "rsqrt", Form: formMath, Lanes: lanesArgs},
	{Name: "Exp", CPP: "exp", Form: formMath, Lanes: lanesArgs},
	{Name: "Exp2", CPP: "exp2", Form: formMath, Lanes: lanesArgs},
	{Name: "Log", CPP: "log", Form: formMath, Lanes: lanesArgs},
	{Name: "Log2", CPP: "log2", Form: formMath, Lanes: lanesArgs},
	{Name: "Sin", CPP: "sin", Form: formMath, Lanes: lanesArgs},
	{Name: "Cos", CPP: "cos", Form: formMath, Lanes: lanesArgs},
	{Name: "Tanh", CPP: "tanh", Form: formMath, Lanes: lanesArgs},
	{Name: "Pow", CPP: "pow", Form: formMath, Lanes: lanesArgs},
	{Name: "Abs", CPP: "abs", Form: formMath, Lanes: lanesArgs},
	{Name: "Floor", CPP: "floor", Form: formMath, Lanes: lanesArgs},
	{Name: "Ceil", CPP: "ceil", Form: formMath, Lanes: lanesArgs},
	{Name: "Fma", CPP: "fma", Form: formMath, Lanes: lanesArgs},

	{Name: "Printf", CPP: "printf", Form: formPrintf},
}

// sdk is sdkCalls by name; the SDK has no function and method of the same
// name.
var sdk = func() map[string]SDKCall {
	m := make(map[string]SDKCall, len(sdkCalls))
	for _, c := range sdkCalls {
		if _, dup := m[c.Name]; dup {
			panic("kernelgen: two rows for kernel." + c.Name)
		}
		m[c.Name] = c
	}
	return m
}()

// LookupSDK is the row of the kernel SDK function or kernel.Thread method
// name, and whether the translator knows it.
func LookupSDK(name string) (SDKCall, bool) {
	c, ok := sdk[name]
	return c, ok
}
