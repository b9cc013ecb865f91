// Package cpu is hipgo's software agent: a GPU in pure Go that consumes AQL
// queues on every machine. It registers itself with rocr as the driver
// "cpu", the lowest priority, so it serves when no GPU is found.
//
// Each queue gets a packet processor goroutine that behaves as a GPU's
// command processor: it takes packets in order, resolves barriers, runs
// kernel dispatches and agent dispatches, and completes their signals.
// Kernels are Go kernels (package rocr/kernel: kernel.Define, in kernel
// sets) run per work-group on a pool of workers that uses every core,
// through the interface the SDK defines for drivers (kernelimpl.Group,
// which the agent's work-groups implement). The package exports what a
// driver does and no kernel SDK: the names it exported for kernels are
// deprecated (deprecated.go).
//
// Memory is mapped outside the Go heap, except under -race (below). The agent enforces HSA's ownership
// rules strictly: a dispatch that touches coarse-grained memory owned by
// another agent fails with hsa.ErrNotOwner, so a program that runs here
// does not silently read stale data on a real GPU.
//
// Under the race detector (go test -race) the global pools' memory comes
// from the Go heap, which the detector watches, kept alive and unmoved
// while allocated; kernarg memory stays mapped (the runtime's own). Every
// ordering the runtime creates is one the detector sees: packets of a
// queue, barriers and events (signals), copies and fills (queue work),
// host callbacks, a dispatch's start and end, and host waits. So the
// detector reports, with both stacks:
//   - work-groups of one dispatch that touch the same memory without
//     atomics, in every run: under -race each group runs on a goroutine
//     of its own and nothing the agent does orders one group before
//     another, so every pair of groups fewer than RaceWindow (128) apart
//     in the grid is checked, every pair of a grid of up to 128 groups
//     (RaceWindow says why the window exists);
//   - kernels on different queues, and copies, with no ordering between
//     them (ManualDeps streams, or rocr queues without barriers);
//   - the host touching fine-grained memory a kernel uses, or a buffer
//     freed while a kernel still runs.
//
// It cannot see races between work-items of one group (they run one after
// another in the group's loop, or as coroutines that hand over at each
// barrier), and, like any run of the detector, it reports a pair of
// stacks once per process.
//
// HIPGO_SANITIZE=1 (or gputest.Sanitize, or spi.EnableSanitize) turns on
// the sanitizer. Besides the accesses outside allocations that always fail,
// it keeps a shadow bit per byte of each coarse-grained allocation made
// while it is on, beside the allocation and dropped with it: kernel writes
// through the checked views (rocr.Ptr's Slice and At), copies and fills set
// them, and a kernel read through a const pointer (rocr.ConstPtr) of a byte
// never written since allocation fails the dispatch with an aperture
// violation naming the kernel, the work-group, the buffer and the address
// range. Reads through a writable Ptr count as writes (a view does not say
// which it is), and device memory written through raw host pointers is
// unseen (MarkWritten declares it). The API's part (gpu/internal/core)
// reports a buffer used on a stream without automatic dependencies while
// unordered work of another stream may still use it, as HIPGO_CHECK_DEPS
// does for the others. Views are not cached while it is on, so kernels run
// slower.
//
// HIPGO_CPU_AGENTS=N configures N agents (default 1) for multi-device code.
//
// HIPGO_STRICT_PTR=1 (read when a queue is created) checks every access a
// kernel makes through a rocr.Ptr against the allocations its pointer
// arguments point into, not only against the agent's live allocations: a
// pointer a kernel computes into a buffer it was not given (one past its
// argument's end, or read from memory) fails the dispatch with an aperture
// violation (gpu.ErrIllegalAddress). A pointer argument that was given a
// view of a buffer (buffer.Sub, a launch's view) may reach only the
// view's elements: an access past it, inside the same buffer, fails the
// dispatch naming the kernel, the argument and the elements (the first
// eight views of a launch are checked). Accesses that hit the per-group
// cache of checked ranges cost the same in both modes.
//
// # Kernels and kernel sets
//
// A kernel's name belongs to the Set that carries it, as a symbol belongs
// to its code object: two libraries may each define a "vector_add", and a
// module loaded from either set launches its own. Within one set names are
// unique (loading a set with two kernels of one name fails).
//
// # Data races in kernels
//
// Without the race detector a race in device memory is silent, as on a
// GPU; under go test -race it is reported (the list above says which
// ones, and the one it cannot see). Three kinds of access race:
//
//   - Work-items of one group: the kernel function runs a group's
//     work-items on one goroutine (as loops, or as coroutines that stop at
//     each barrier), so they never race with each other. Group memory
//     (kernel.Shared, kernel.GroupShared) is private to the group.
//   - Groups of one grid: groups run concurrently on several workers.
//     Two groups that write the same element of device memory, or one that
//     writes what another reads, race. Give each group its own range
//     (kernel.Block.Span) or combine with the atomics (kernel.AtomicAdd,
//     AtomicCAS, AtomicExch, AtomicMin, AtomicMax), for instance a
//     per-group histogram in group memory flushed by one AtomicAdd per
//     bin.
//   - Kernel and host (or another kernel): host code that touches a buffer
//     while a kernel that uses it is in flight races. Order them through
//     the stream: synchronize, record and wait for an event, or copy on the
//     same stream. Kernels on different streams that write one buffer are
//     ordered by the buffer's dependencies (gpu/buffer) unless manual
//     dependencies are on.
//
// Plain loads and stores of an element that an atomic updates concurrently
// race too: read it after the kernel completes, or with an atomic.
//
// Occupancy (spi.Occupancy): a worker runs one work-group at a time, so a
// compute unit holds one group of any size the kernel allows whose group
// memory fits GroupMemory, and the best group size is the kernel's largest.
//
// Cooperative dispatches (aql.DispatchCooperative, module.LaunchCooperative)
// run every group of the grid at once, each on its own goroutine, up to
// one group per worker; kernel.Block.GridSync is their grid-wide barrier, and
// what a group wrote before it is ordered before what any group reads
// after it (the race detector sees the barrier). GridSync in any other
// dispatch fails it; a group that fails, or a cancelled dispatch, breaks
// the barrier so that no group waits forever.
//
// # Kernels that fail, and kernels that never return
//
// A kernel that panics fails its dispatch with a *PanicError: the
// kernel, the work-group, the file:line of the kernel function's frame
// where it panicked (the panic itself, or the call that led to it), and
// the panic value; Stack gives the goroutine's stack from the panic to
// the kernel. The value is formatted once, when the dispatch fails, and
// only when it is a string, a number, or of a type of the standard
// library or of hipgo: a value of the program's own type is described by
// its type, and none of its methods is run (an Error method that calls
// itself overflows the stack, which kills the process whatever
// recovers); PanicError.Recovered is the value. A value whose Error or
// String method panics, or does not return within a second, is described
// by its type too (the method's goroutine is left to finish on its own),
// so no panic value kills or hangs the process. An error value that
// formats is wrapped, for errors.Is and errors.As. An access outside what the kernel may touch fails with an
// *AccessError, which names the kernel function's line that made it too.
//
// Go cannot stop a goroutine from outside, so a kernel that never returns
// is given up on, as a GPU watchdog gives up on a hung wave:
//
//   - With a kernel timeout (HIPGO_KERNEL_TIMEOUT, Queue.SetKernelTimeout,
//     stream.Stream.SetKernelTimeout), a kernel past it sees Canceled; if
//     it has not returned within the queue's grace (HIPGO_KERNEL_GRACE,
//     read when a queue is made, default 3s),
//     its dispatch fails with an error wrapping hsa.ErrTimeout
//     (gpu.ErrLaunchTimeOut) and hsa.ErrAbandoned. Synchronize returns;
//     the packets behind it run on a new processor goroutine (and fail,
//     the queue having failed).
//
//   - Without one, Synchronize waits, as on a GPU without a watchdog.
//     stream.Stream.Destroy waits as long as the stream's work moves on;
//     a kernel that runs through a whole grace is cancelled (its queue
//     destroyed: Canceled reports true) and, if it has not returned a
//     grace later, abandoned. rocr.Queue.Destroy, gpu.Shutdown and
//     rocr.ShutDown cancel at once and abandon after one grace per queue.
//     Each returns an error wrapping hsa.ErrAbandoned naming the kernel;
//     the queue is destroyed all the same.
//
//   - A dispatch one of whose work-groups fails (a panic, an access
//     error) cancels the others: Canceled reports true to them. Those
//     that have not returned within the queue's grace are abandoned: the
//     dispatch fails with the first failure and hsa.ErrAbandoned, and
//     Synchronize returns it instead of waiting for work-groups that
//     neither return nor poll Canceled.
//
// An abandoned kernel goes on running on its goroutine (and on the
// workers that ran its other work-groups, which the pool replaces) until
// it returns: nothing can end it. It may still touch any of the agent's
// memory, so from the moment one is abandoned until the last abandoned
// kernel returns, memory freed (buffers, the kernarg segments of
// destroyed queues) is not reused and pools are not unmapped, ShutDown's
// included: all of it is released when that kernel returns. Runaways
// counts the abandoned kernels still running. A kernel that never returns
// keeps its goroutine, and the memory freed after it was abandoned, for
// the rest of the process: the report says so, and the cure is a kernel
// that polls Canceled.
//
// # Files
//
// Every driver keeps one file per concept under the same name: driver.go
// (registration, Open), agent.go, memory.go (pools), code.go (loading
// code: here Go kernels and their sets), exec.go (the executor of a soft
// queue; queue.go for hardware rings), signal.go and lib.go (where the
// driver has its own signals and library; this one has neither). Here also:
// group.go (what a kernel sees), atomic.go, occupancy.go, racemem.go and
// sanitize.go (race and sanitizer builds).
package cpu
