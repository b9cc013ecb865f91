package spi

import (
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Driver provides agents of one kind. Drivers register themselves from an
// init function with Register (the database/sql pattern) and are
// opened by rocr.Init.
type Driver interface {
	// Name is the driver's name: "cpu", "cuda", "rocm".
	Name() string
	// Priority orders drivers: higher opens first; the cpu driver is lowest.
	Priority() int
	// Open discovers the driver's agents. host is the runtime's side of
	// the contract, which the driver keeps for its agents' use. A driver
	// that cannot run here returns an error wrapping ErrNotSupported or
	// ErrNoAgent that says why.
	Open(host Host) ([]AgentDriver, error)
	// Close releases the driver after all its agents are closed.
	Close() error
}

// AgentDriver is one agent as its driver sees it.
type AgentDriver interface {
	Info() hsa.AgentInfo
	// Pools lists the agent's memory pools.
	Pools() []PoolDriver
	// NewExecutor serves one soft queue: rocr owns the ring and its packet
	// processor, and the executor carries out each packet. Drivers with
	// hardware queues implement HardwareQueues instead and return
	// ErrNotSupported here.
	NewExecutor(q Queue) (Executor, error)
	// Load loads code onto the agent.
	Load(code *hsa.Code) (Executable, error)
	// Close releases the agent at ShutDown.
	Close() error
}

// HardwareQueues is implemented by agent drivers whose queues are real
// hardware rings (rocm): rocr writes packets into them with the same code.
type HardwareQueues interface {
	CreateHardwareQueue(size uint32, typ hsa.QueueType) (HardwareQueue, error)
}

// HardwareQueue describes a driver-owned ring.
type HardwareQueue struct {
	Base       uintptr // ring of Size 64-byte slots
	Size       uint32
	WriteIndex *uint64
	ReadIndex  *uint64
	Doorbell   Signal
	ID         uint64
	Destroy    func() error
}

// Executor carries out the packets of one soft queue, in order, on the
// queue's processor goroutine.
type Executor interface {
	// Dispatch runs or enqueues a kernel dispatch.
	Dispatch(q Queue, p *aql.KernelDispatch) error
	// AgentWork runs or enqueues an agent-dispatch packet (a copy, fill
	// or host callback), decoded and checked by rocr.
	AgentWork(q Queue, w *AgentWork) error
	// Barrier resolves a BARRIER_AND (or=false) or BARRIER_OR packet.
	Barrier(q Queue, p *aql.BarrierAnd, or bool) error
	// Close stops the executor when the queue is destroyed.
	Close() error
}

// Poller is implemented by asynchronous executors whose device reports
// failures of work in flight only when asked (a CUDA stream's sticky
// error): the idle processor calls Poll every millisecond. Poll completes
// the signals of the failed work with the error, so no waiter hangs, and
// returns it to fail the queue.
type Poller interface {
	Poll() error
}

// ThreadLocker is implemented by executors that lock the queue's processor
// goroutine to its OS thread (a CUDA context is current there).
type ThreadLocker interface {
	LocksThread() bool
}

// ThreadBinder is implemented by executors that prepare the processor
// goroutine once, before its first packet (lock the OS thread, make a
// context current there).
type ThreadBinder interface {
	BindThread()
}

// InlineExecutor is implemented by executors whose packets may be carried
// out on the submitting goroutine while the queue is idle, which saves the
// hop to the processor goroutine (a cuda launch is then one driver call on
// the caller's thread). HIPGO_INLINE_SUBMIT=0 turns it off.
type InlineExecutor interface {
	// Inline reports whether the packet can run on the caller without
	// blocking it.
	Inline(h aql.Header, slot unsafe.Pointer) bool
	// Enter prepares the calling goroutine for the executor's calls;
	// Leave undoes it.
	Enter()
	Leave()
}

// AsyncExecutor is implemented by executors that complete packets'
// completion signals themselves (a GPU writes them); for the others the
// processor completes them when the method returns.
type AsyncExecutor interface {
	CompletesSignals() bool
}

// SignalFactory is implemented by agents whose packets must carry the
// runtime's own signals (rocm: hsa_signal_t); rocr's soft signals serve
// every other agent.
type SignalFactory interface {
	NewSignal(initial int64) (SignalBackend, error)
}

// QueueErrorBinder is implemented by HardwareQueues drivers whose runtime
// reports queue errors asynchronously; fail makes the error the queue's
// sticky error.
type QueueErrorBinder interface {
	BindQueueErrors(id uint64, fail func(error))
}

// Copier is implemented by HardwareQueues agents, whose rings cannot run
// AGENT_DISPATCH packets (a GPU's): rocr decodes each copy and fill
// submitted to such a queue and hands it to the copy engine here, with a
// dependency signal the ring sets once the packets ahead are done and a
// completion signal the ring waits for before the packets after. deps are
// waited for to reach 0; done is decremented by 1 on completion (a failure
// is recorded with done.Fail first). Addresses lie in the driver's pool
// allocations: rocr stages Go memory. Without a Copier, copies and fills on
// hardware queues fail with ErrNotSupported; host callbacks still run.
type Copier interface {
	CopyAsync(dst, src uintptr, n uint64, deps []Signal, done Signal) error
	FillAsync(dst uintptr, pattern, count uint64, elemSize int, deps []Signal, done Signal) error
}

// RectCopier is implemented by Copiers whose engine copies 2-D and 3-D
// rectangles in one operation (hsa_amd_memory_async_copy_rect). r is a
// copy between pool addresses (no Go memory, no fill), checked; a Copier
// that cannot take this one (alignment, limits, both ends in host memory)
// returns an error wrapping ErrNotSupported, and the runtime copies it row
// by row with CopyAsync instead.
type RectCopier interface {
	CopyRectAsync(r *Rect, deps []Signal, done Signal) error
}

// PoolDriver is one pool as its driver provides it.
type PoolDriver interface {
	Info() hsa.PoolInfo
	Allocate(size uint64) (uintptr, error)
	Free(ptr uintptr, size uint64) error
}

// Executable is code loaded onto an agent.
type Executable interface {
	Kernels() []hsa.KernelSymbol
	Destroy() error
}

// GlobalFinder is an optional interface of an Executable: it finds a
// variable of the loaded code by name (a `__device__` or `__constant__`
// variable; a Go kernel set's declared variable) and gives its address
// on the agent and its size in bytes. A name the code does not define is
// StatusErrorInvalidSymbolName. Global wraps it.
type GlobalFinder interface {
	Global(name string) (addr uintptr, size uint64, err error)
}

// SignalBackend lets a driver supply signals that live in its runtime (ROCR's
// hsa_signal_t). When set, every operation goes through it.
type SignalBackend interface {
	Handle() uint64
	Load() int64
	Store(v int64)
	Add(d int64) int64 // returns the new value
	CAS(old, new int64) int64
	Exchange(v int64) int64
	Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64
	Destroy() error
}

// MemoryView maps device addresses to memory the calling Go code may touch.
// The cpu agent's kernels get one with every work-group; it checks that the
// range lies inside one live allocation the agent may access, and fails the
// dispatch (by panicking with a descriptive error that the packet
// processor recovers) when it does not.
type MemoryView interface {
	View(addr, size uintptr) unsafe.Pointer
}

// BoundedView is a MemoryView that also knows which pointer an access is
// made through: the range must lie in the allocation base points into, so
// running off the end of one buffer into its neighbour is caught too.
type BoundedView interface {
	ViewFrom(base, addr, size uintptr) unsafe.Pointer
}

// Faulter is a MemoryView that can fail the dispatch with a message of
// its own, for an access that is wrong before it names any memory (a
// reversed Slice range). Fault does not return.
type Faulter interface {
	Fault(msg string)
}

// Occupancy is implemented by agent drivers that can say how many
// work-groups of a kernel fit on one compute unit at once
// (hipOccupancyMaxActiveBlocksPerMultiprocessor) and which work-group size
// fills the agent best (hipOccupancyMaxPotentialBlockSize). The cuda driver
// asks the driver's occupancy calculator; the rocm driver computes it from
// the kernel's code object and its target's limits; the cpu driver answers
// from its worker model. Agents whose drivers lack it answer
// ErrNotSupported.
type Occupancy interface {
	// MaxActiveGroups is the number of work-groups of groupSize work-items
	// with dynGroupMem bytes of dynamic group memory each that one compute
	// unit holds at once; 0 when such a group cannot run at all.
	MaxActiveGroups(k *hsa.KernelSymbol, groupSize, dynGroupMem int) (int, error)
	// MaxPotentialGroupSize is the work-group size (at most limit, when
	// limit > 0) that maximizes occupancy, and the smallest grid, in
	// work-groups, that reaches it on every compute unit.
	MaxPotentialGroupSize(k *hsa.KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error)
}

// Clusters is implemented by agent drivers whose agents launch
// dispatches in thread-block clusters (sm_90's, through cuLaunchKernelEx):
// a KERNEL_DISPATCH whose Reserved2 carries aql.ClusterBits. Such an agent
// reports its portable cluster size in AgentInfo.MaxClusterSize; without
// the interface, or with a MaxClusterSize of 0, the agent has no clusters,
// Agent.AllowNonPortableClusters and Agent.MaxPotentialClusterSize answer
// ErrNotSupported, and the gpu layer refuses a launch in clusters before
// it is queued.
type Clusters interface {
	// AllowNonPortableClusters lets kernel k launch in clusters past the
	// portable size (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
	AllowNonPortableClusters(k *hsa.KernelSymbol, allow bool) error
	// MaxPotentialClusterSize is the largest cluster, in work-groups, a
	// launch of k of grid work-groups of group work-items with
	// dynGroupMem bytes of dynamic group memory each can run in
	// (cuOccupancyMaxPotentialClusterSize).
	MaxPotentialClusterSize(k *hsa.KernelSymbol, grid, group [3]uint32, dynGroupMem int) (int, error)
}

// PeerAccessor is implemented by agent drivers whose devices can map each
// other's device memory (CUDA's peer access). other is an agent of the same
// driver. Agents whose driver lacks it have peer access only when both are
// cpu agents, whose memory is all host memory.
type PeerAccessor interface {
	CanAccessPeer(other AgentDriver) bool
	EnablePeer(other AgentDriver) error
}

// PeerDisabler is implemented by PeerAccessor drivers that undo EnablePeer
// (cuCtxDisablePeerAccess); without it disabling is rocr's bookkeeping only.
type PeerDisabler interface {
	DisablePeer(other AgentDriver) error
}

// Resetter is implemented by agent drivers that keep device state a reset
// must rebuild (cuda: the primary context, with the modules and memory in
// it). rocr has destroyed the agent's queues and freed its pools'
// allocations before it calls Reset; without Resetter that is all a reset
// does.
type Resetter interface {
	Reset() error
}

// VisibleFilter is implemented by drivers whose vendor library already
// applies a visible-devices variable (libhsa-runtime64 reads
// ROCR_VISIBLE_DEVICES, libcuda CUDA_VISIBLE_DEVICES): hipgo must not
// apply the same list a second time to what is left.
type VisibleFilter interface {
	AppliesVisible(env string) bool
}

// Completer is implemented by executors that complete their packets'
// signals lazily: a GPU that would otherwise spend one memory write per
// packet writes one progress counter for a run of packets, and only when
// somebody observes one of them (a host wait, a barrier on another queue,
// an idle queue). The signals themselves are then completed on the host.
type Completer interface {
	// Flush makes the deferred signals up to seq complete soon: it queues
	// whatever write that takes, or marks them for Settle to ask the
	// driver about, and returns at once.
	Flush(seq uint64)
	// Settle completes on the host every deferred signal whose work is
	// known done. It never blocks.
	Settle()
	// Await blocks until the work up to seq is done and settles it, where
	// the completer has a cheaper way than a flush and a poll (a driver's
	// own stream synchronize); it reports false to decline.
	Await(seq uint64) bool
}

// CompleterOf is implemented by lazy executors: the reference their
// signals carry.
type CompleterOf interface {
	CompleterRef() *CompleterRef
}

// KernelCanceler is implemented by executors whose kernels can be stopped
// cooperatively (the cpu agent's Go kernels poll Group.Canceled): a
// dispatch that runs longer than the timeout fails with ErrTimeout.
type KernelCanceler interface {
	SetKernelTimeout(d time.Duration)
}

// Abandoner is implemented by executors whose kernels may run on past
// every bound (a Go kernel that never returns), so that rocr can give up
// on one (Queue.Abandon). Abandon is called from another goroutine while
// the executor's Dispatch still runs: from then on the executor serves
// the queue's later packets without what that Dispatch uses, and keeps
// what its kernel may still touch. Released is called on the goroutine
// left behind once that Dispatch returns.
type Abandoner interface {
	Abandon(q Queue)
	Released(q Queue)
}

// KernelNamer is implemented by executors that can name a kernel object.
type KernelNamer interface {
	KernelName(object uint64) string
}

// ChainKernel is one kernel dispatch of a recorded chain: the fields of
// its AQL packet that a driver needs, and its kernarg image.
type ChainKernel struct {
	Object       uint64
	Grid, Block  [3]uint32 // work-items and work-group size, as in the packet
	GroupSegment uint32
	Kernarg      []byte
}

// Chain is a run of kernel dispatches recorded once, which the agent's
// driver replays with one call.
type Chain interface {
	// Launch queues the chain's dispatches, in order, on the agent's
	// native stream after what was queued there before. It is called by
	// an aql.AgentNative packet's function, with the device current.
	Launch(stream uintptr) error
	// Close releases the recording. Launches already queued on the
	// device complete; Launch after Close is an error.
	Close() error
}

// ChainRecorder is an optional interface of an AgentDriver: it records a
// chain of kernel dispatches as one replayable unit (a CUDA graph on
// cuda). Without it, a graph's packets are written into the queue at each
// replay, which is what agents that read the queue themselves (cpu, rocm)
// do best anyway.
type ChainRecorder interface {
	RecordChain(ks []ChainKernel) (Chain, error)
}

// PacketFailer is implemented by executors that must settle the work they
// have in flight before a packet that rocr rejects (an AGENT_DISPATCH that
// does not decode) fails: the processor calls FailPacket with the error
// and completes the packet's signal with what it returns.
type PacketFailer interface {
	FailPacket(err error) error
}

// ContextRunner is an optional interface of an AgentDriver whose vendor
// library keeps a current device per OS thread (CUDA's contexts).
// RunWithContext runs f on an OS thread of its own with the agent's
// context current, for a vendor library's calls that take no stream (NCCL
// making or releasing a communicator); calls that take one run in an
// AgentNative packet, where the context is current already. The thread
// ends with f: f's library may leave other devices current on it.
type ContextRunner interface {
	RunWithContext(f func() error) error
}

// StreamPriorities is implemented by agent drivers that report the range
// of stream priorities (hipDeviceGetStreamPriorityRange). A lower number
// is a higher priority, so least >= greatest. Agents whose drivers lack it
// have the one priority 0.
type StreamPriorities interface {
	StreamPriorityRange() (least, greatest int, err error)
}

// MemoryInfo is implemented by agent drivers that know the device memory
// free now, all users of the device counted (cuMemGetInfo,
// HSA_AMD_AGENT_INFO_MEMORY_AVAIL). Agents whose drivers lack it report
// what this runtime's allocations leave of the total (gpu.Device.MemInfo).
type MemoryInfo interface {
	MemInfo() (free, total uint64, err error)
}
