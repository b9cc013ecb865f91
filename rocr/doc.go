// Package rocr is hipgo's HSA runtime core, in Go: what ROCm's ROCR
// (libhsa-runtime64) is to HIP. It owns agents, memory pools, signals and
// user-mode AQL queues; drivers (rocr/drivers/cpu, cuda, rocm) register
// with it and provide the agents.
//
// Lifetimes: Init opens the runtime and is reference counted like
// hsa_init; every Init needs a ShutDown. The last ShutDown destroys every
// queue still open (work not yet run is discarded and its completion
// signals complete with an error, so no waiter hangs), frees every pool
// allocation and closes the drivers. Agents, pools, queues and allocations
// belong to the runtime that made them and are refused after it is shut
// down; any call before Init returns an error wrapping hsa.ErrNotInitialized
// (HSA_STATUS_ERROR_NOT_INITIALIZED, 0x100B).
//
// Queues follow the HSA protocol: Reserve a packet id (an atomic add on the
// write index, waiting while the ring is full), write the packet's body
// into Slot(id), then Publish its header with one release store and ring
// the doorbell. Submit does the three steps for a 64-byte packet. A soft
// queue (cpu, cuda) has a packet processor goroutine that takes packets in
// order and hands them to the driver's Executor; a hardware queue (rocm) is
// the driver's own ring.
//
// Drivers implement the interfaces of package spi, whose documentation
// lists every one, which are optional, and what rocr does without each;
// rocr hands them its queues and signals as spi.Queue and spi.Signal. The
// values rocr and the drivers share (agent and pool info, code, status
// codes and errors) are package hsa's. rocr names the types and the
// sentinel errors; the values of the enumerations (hsa.StatusSuccess,
// hsa.CondEQ, hsa.SegmentGlobal, ...) are hsa's alone. Raw
// memory access (internal/hostmem) and the Go values that packets refer to
// by id (internal/hostref) are shared with drivers and the gpu layer from
// internal packages; the project's tests reach inside through
// internal/rocrhook.
//
// Errors are *hsa.Error values carrying an HSA Status; errors.Is matches
// them against the Status and against package hsa's sentinels
// (hsa.ErrInvalidArgument, hsa.ErrOutOfResources, hsa.ErrNotOwner,
// hsa.ErrNoAgent, hsa.ErrNotSupported, ...), which rocr does not repeat.
//
// Concurrency: everything is safe for use from several goroutines. Signal
// operations are lock-free; Signal.Wait spins briefly, then sleeps until a
// store wakes it (or polls, for signals a GPU writes). Queue.Reserve blocks
// while the ring is full; Queue.Destroy and ShutDown block until the
// queue's processor has stopped. Environment: HIPGO_DRIVER,
// ROCR_VISIBLE_DEVICES, GPU_MAX_HEAP_SIZE, HSA_ENABLE_DEBUG, HIPGO_TRACE.
package rocr
