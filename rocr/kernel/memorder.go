package kernel

import (
	"sync/atomic"
	"unsafe"
)

// Order is an atomic operation's memory order, C++'s memory_order. A
// kernel passes one of the constants, which hipgo-gen requires to be a
// constant.
type Order int

// The memory orders.
const (
	Relaxed Order = iota // no ordering: memory_order_relaxed
	Acquire              // later accesses stay after it: memory_order_acquire
	Release              // earlier accesses stay before it: memory_order_release
	AcqRel               // both, for read-modify-writes: memory_order_acq_rel
	SeqCst               // one total order: memory_order_seq_cst
)

// Scope is the set of work-items an atomic operation or fence orders
// against, CUDA's thread_scope and HIP's memory scope. A kernel passes one
// of the constants.
type Scope int

// The memory scopes.
const (
	ScopeBlock  Scope = iota // the work-group: thread_scope_block, __HIP_MEMORY_SCOPE_WORKGROUP
	ScopeDevice              // the device: thread_scope_device, __HIP_MEMORY_SCOPE_AGENT
	ScopeSystem              // the device, the host and peer devices: thread_scope_system, __HIP_MEMORY_SCOPE_SYSTEM
)

// fenceWord is what the cpu agent's fences act on. sync/atomic has no
// fence; a read-modify-write is a full barrier on amd64 and arm64, and in
// Go's memory model every atomic is sequentially consistent.
var fenceWord atomic.Uint32

// ThreadFence orders the calling work-item's memory accesses before it
// against those after it, as seen by every work-item of the device
// (__threadfence, a sequentially consistent fence at device scope).
func ThreadFence() { fenceWord.Add(0) }

// ThreadFenceBlock is ThreadFence as seen by the work-items of the block
// (__threadfence_block).
func ThreadFenceBlock() { fenceWord.Add(0) }

// ThreadFenceSystem is ThreadFence as seen by the host and peer devices
// too (__threadfence_system).
func ThreadFenceSystem() { fenceWord.Add(0) }

// AtomicLoad reads *p atomically with order o (Relaxed, Acquire or SeqCst)
// at scope s. On the cpu agent every order is sequentially consistent,
// which is stronger than any asked for.
func AtomicLoad[T Atomic](p *T, o Order, s Scope) T {
	if unsafe.Sizeof(*p) == 4 {
		u := atomic.LoadUint32((*uint32)(unsafe.Pointer(p)))
		return *(*T)(unsafe.Pointer(&u))
	}
	u := atomic.LoadUint64((*uint64)(unsafe.Pointer(p)))
	return *(*T)(unsafe.Pointer(&u))
}

// AtomicStore writes v to *p atomically with order o (Relaxed, Release or
// SeqCst) at scope s.
func AtomicStore[T Atomic](p *T, v T, o Order, s Scope) {
	if unsafe.Sizeof(*p) == 4 {
		atomic.StoreUint32((*uint32)(unsafe.Pointer(p)), *(*uint32)(unsafe.Pointer(&v)))
		return
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(p)), *(*uint64)(unsafe.Pointer(&v)))
}

// AtomicAddScoped is AtomicAdd with a memory order and a scope
// (atomicAdd_block, atomicAdd_system and cuda::atomic_ref's fetch_add).
func AtomicAddScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicAdd(p, v) }

// AtomicSubScoped is AtomicSub with a memory order and a scope.
func AtomicSubScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicSub(p, v) }

// AtomicExchScoped is AtomicExch with a memory order and a scope.
func AtomicExchScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicExch(p, v) }

// AtomicCASScoped is AtomicCAS with a memory order and a scope: the order
// of the exchange; a failed comparison reads with the same order, less
// its release part.
func AtomicCASScoped[T Integer](p *T, cmp, v T, o Order, s Scope) T { return AtomicCAS(p, cmp, v) }

// AtomicMinScoped is AtomicMin with a memory order and a scope.
func AtomicMinScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicMin(p, v) }

// AtomicMaxScoped is AtomicMax with a memory order and a scope.
func AtomicMaxScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicMax(p, v) }

// AtomicAndScoped is AtomicAnd with a memory order and a scope.
func AtomicAndScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicAnd(p, v) }

// AtomicOrScoped is AtomicOr with a memory order and a scope.
func AtomicOrScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicOr(p, v) }

// AtomicXorScoped is AtomicXor with a memory order and a scope.
func AtomicXorScoped[T Integer](p *T, v T, o Order, s Scope) T { return AtomicXor(p, v) }

// OrderedBlockID is the block's place in the order in which the blocks of
// the launch started: a ticket taken by the block's first work-item with
// an atomic add on *counter and handed to every work-item of the block.
// A block with ticket k knows that the blocks with tickets below k have
// started, which a single-pass scan's look-back needs and blockIdx does
// not promise (AMD GPUs dispatch blocks in no promised order). *counter
// must be zero when the launch starts (a Memset on the same stream
// before it) and holds the number of blocks after it. Every work-item of
// the block must call it, as SyncThreads, which it contains twice.
func OrderedBlockID(t Thread, counter *uint32) int {
	b := t.l.b
	if t.l.flat == 0 {
		b.ticket = int(AtomicAdd(counter, 1))
	}
	t.SyncThreads()
	id := b.ticket
	t.SyncThreads()
	return id
}
