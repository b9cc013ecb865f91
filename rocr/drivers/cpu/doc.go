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
// Memory is mapped outside the Go heap. The agent enforces HSA's ownership
// rules strictly: a dispatch that touches coarse-grained memory owned by
// another agent fails with rocr.ErrNotOwner, so a program that runs here
// does not silently read stale data on a real GPU.
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
//
// Occupancy (rocr.Occupancy): a worker runs one work-group at a time, so a
// compute unit holds one group of any size the kernel allows whose group
// memory fits GroupMemory, and the best group size is the kernel's largest.
package cpu
