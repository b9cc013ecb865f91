// Package spi is the interface between hipgo's runtime (package rocr) and
// its drivers (rocr/drivers/cpu, cuda, rocm), in the manner of
// database/sql/driver: rocr calls these interfaces, drivers implement them
// and register with Register, and a program never calls them itself.
// The value types both sides share are package hsa's.
//
// The contract runs both ways, and no driver imports package rocr: what a
// driver needs from the runtime (its signals, found from packets'
// handles; the ownership checks of pointers and ranges; barrier waits;
// the allocations behind addresses) is Host, which rocr hands to each
// Driver.Open (host.go). Host memory outside the Go heap is MapAnonymous.
//
// rocr hands a driver its own objects as handles: a soft queue as a Queue,
// a signal as a Signal or HostSignal (both are rocr's *Queue and *Signal),
// an allocation as an Allocation, another agent as its AgentDriver (nil:
// the host).
//
// The whole driver interface is here. Every driver implements
//
//   - Driver: registered with Register,
//     opened by rocr.Init, which hands it the Host.
//   - AgentDriver: one agent, its info, pools, executors and code loading.
//   - PoolDriver: one memory pool of an agent.
//   - Executor: carries out the packets of one soft queue (required unless
//     the agent has HardwareQueues).
//   - Executable: code loaded onto an agent.
//
// An AgentDriver may also implement, each optional:
//
//   - HardwareQueues: queues are the device's own rings. Without it every
//     queue is a soft ring that rocr's packet processor hands to an Executor.
//   - QueueErrorBinder (with HardwareQueues): the driver reports a queue's
//     errors as they happen. Without it a hardware queue fails only through
//     its packets' signals.
//   - SignalFactory (and its SignalBackend): packets must carry the vendor
//     runtime's signals. Without it rocr's own signals serve the agent.
//   - Copier (with HardwareQueues): the agent has a copy engine. Copies and
//     fills between pool memory on a hardware queue go to it in queue
//     order (RectCopier: rectangles in one operation); without it, and for
//     Go memory ends, rocr carries them out on the host.
//   - Occupancy: the agent answers occupancy questions. Without it
//     MaxActiveGroups and MaxPotentialGroupSize return ErrNotSupported.
//   - Clusters (with AgentInfo.MaxClusterSize above 0): dispatches run in
//     thread-block clusters. Without it AllowNonPortableClusters and
//     MaxPotentialClusterSize return ErrNotSupported, and no packet
//     carries aql.ClusterBits.
//   - PeerAccessor: devices map each other's memory. Without it only two
//     cpu agents have peer access. PeerDisabler undoes EnablePeer; without
//     it disabling is rocr's bookkeeping only.
//   - Resetter: device state a reset must rebuild. Without it a reset
//     destroys the agent's queues and frees its allocations, nothing more.
//   - VisibleFilter: the vendor library applies a visible-devices variable
//     itself. Without it rocr applies the list.
//   - ChainRecorder: a run of kernel dispatches can be recorded once and
//     replayed with one call (CUDA graphs). Without it a graph's packets
//     are written into the queue at each replay.
//   - ContextRunner: the vendor library keeps a current device per OS
//     thread, and other libraries' calls that take no stream run under it.
//     Without it such calls have no context to run in (the rocm agent's
//     ROCR has none).
//   - IPCMemory: memory can be shared with other processes (an IPC pool,
//     export, open, close). Without it IPCPool, ExportIPC and
//     OpenIPC return ErrNotSupported.
//   - IPCSignals (with IPCMemory): signals can be shared with other
//     processes, for interprocess events. Without it NewIPCSignal and
//     OpenIPCSignal return ErrNotSupported.
//
// An Executor may also implement, each optional:
//
//   - AsyncExecutor: the device completes packets' signals. Without it the
//     processor completes each signal when the executor's method returns.
//   - Poller: failures of work in flight show only when asked. Without it
//     the executor's return values are the only failures.
//   - ThreadLocker, ThreadBinder: the processor goroutine is locked to its
//     OS thread, or prepared before its first packet. Without them it is an
//     ordinary goroutine.
//   - InlineExecutor: packets may run on the submitting goroutine while the
//     queue is idle. Without it every packet goes through the processor.
//   - CompleterOf (and its Completer): signals are completed lazily, for a
//     run of packets at once. Without it each packet's signal completes
//     when the packet does.
//   - KernelCanceler: kernels can be stopped. Without it SetKernelTimeout
//     returns ErrNotSupported.
//   - PacketFailer: the executor settles its work in flight before a
//     packet rocr rejects fails. Without it the packet fails at once.
//   - Abandoner: a kernel that never returns can be given up on, after
//     its timeout or when its queue is destroyed. Without it Destroy waits
//     for the kernel as long as it runs.
//   - KernelNamer: kernels have names. Without it logs, traces and errors
//     name a kernel by its code object handle.
//   - GlobalFinder (of an Executable): variables of loaded code can be
//     looked up. Without it Global returns ErrNotSupported.
//
// Drivers whose kernels are Go code hand each work-group a MemoryView, which
// Ptr.Slice and Ptr.At check accesses through; a BoundedView also checks
// that an access stays in the allocation its pointer points into. Without
// BoundedView any live allocation the agent may access passes.

package spi
