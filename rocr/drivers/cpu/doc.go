// Package cpu is hipgo's software agent: a GPU in pure Go that consumes AQL
// queues on every machine. It registers itself with rocr as the driver
// "cpu", the lowest priority, so it serves when no GPU is found.
//
// Each queue gets a packet processor goroutine that behaves as a GPU's
// command processor: it takes packets in order, resolves barriers, runs
// kernel dispatches and agent dispatches, and completes their signals.
// Kernels are Go functions registered with Define under a name and run per
// work-group on a pool of workers that uses every core; __syncthreads() is
// written as consecutive loops over the work-items of a group.
//
// Memory is mapped outside the Go heap, except under -race (below). The agent enforces HSA's ownership
// rules strictly: a dispatch that touches coarse-grained memory owned by
// another agent fails with rocr.ErrNotOwner, so a program that runs here
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
//     atomics, when they run on different goroutines: the groups of a
//     dispatch are unordered (they claim work outside the detector's view,
//     one group at a time), and the queue's processor and the worker pool
//     run them, so the more groups, the more pairs are checked;
//   - kernels on different queues, and copies, with no ordering between
//     them (ManualDeps streams, or rocr queues without barriers);
//   - the host touching fine-grained memory a kernel uses, or a buffer
//     freed while a kernel still runs.
//
// It cannot see races between work-items of one group (they run one after
// another in the group's loop), nor between groups that happened to run
// on the same goroutine: a race a dispatch shows only once groups land on
// two goroutines is found in some runs, not all.
//
// HIPGO_SANITIZE=1 (or gputest.Sanitize, or rocr.EnableSanitize) turns on
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
// violation (gpu.ErrIllegalAddress). Accesses that hit the per-group cache
// of checked ranges cost the same in both modes.
package cpu
