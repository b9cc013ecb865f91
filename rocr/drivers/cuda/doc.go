// Package cuda is hipgo's agent for NVIDIA GPUs, over the CUDA driver API.
// It opens libcuda.so.1 (or $HIPGO_CUDA_LIBRARY; see internal/vendorlib) at
// run time with purego (no cgo, no SDK) and
// registers itself with rocr as the driver "cuda", priority 20: after rocm,
// before cpu. A missing library or device is an error wrapping
// hsa.ErrNotSupported, so rocr.Init goes on to the next driver.
//
// Each CUDA device is one agent with its primary context. Its pools are the
// device memory (coarse-grained, cuMemAlloc), page-locked host memory mapped
// into every device (fine-grained, cuMemHostAlloc), and kernarg memory
// (plain mapped host memory: cuLaunchKernel copies the kernarg image out of
// it through CU_LAUNCH_PARAM_BUFFER_POINTER at launch).
//
// Each rocr queue gets an executor that owns a non-blocking CUDA stream. The
// queue's packet processor calls it in order on one goroutine, which the
// executor locks to its OS thread with the context current; while the queue
// is idle a submitter carries its own packet out instead (rocr's inline
// submission), with the context made current on its locked thread for the
// call, which saves the hop to the processor. Other calls (allocation,
// loading, stream creation) push the context on a locked thread and pop it
// after. Per packet nothing is allocated and nothing is reflected: driver
// calls go through purego's trampoline with arguments that live outside the
// Go heap.
//
// Signals are completed lazily (spi.Completer). A packet's completion
// signal costs no driver call: the executor numbers it and remembers it.
// When somebody observes one of those signals (a host wait, a barrier on
// another queue, or the idle processor every millisecond), the executor
// queues one stream memory write of the count of work queued so far into
// its progress word, and the host completes every remembered signal up to
// the count the GPU wrote. A launch is therefore one driver call, and a run
// of launches followed by a synchronize is one launch each plus one write.
// An event record (a barrier with a completion signal and no dependency)
// is one cuEventRecord of a CUDA event of its own, as a native record is:
// a host waiter learns it passed from cuEventQuery, and another stream of
// the context waits for it with one cuStreamWaitEvent. Beyond 32 records
// in flight on a stream, a record writes the progress count instead.
// A BARRIER_AND on a signal deferred by another queue of the same context
// becomes cuStreamWaitValue64(GEQ) on that queue's progress word, so
// dependencies never round-trip through the host; dependencies on other
// signals wait for their memory to read 0 (cuStreamWaitValue64 EQ 0), and
// BARRIER_OR waits on the host. A dependency's recorded failure is honoured
// when it is already complete as the barrier is translated.
//
// Timestamps: a barrier packet with a completion signal (an event record)
// launches a one-thread kernel that stores %globaltimer, shifted into
// clock.Now's clock by a calibration at queue creation, as the packet's start
// and end. With HIPGO_CUDA_PROFILE=1 every packet with a completion signal
// is bracketed the same way; otherwise kernel and copy packets carry no
// timestamps, which keeps launches at native cost.
//
// AGENT_DISPATCH: copies are cuMemcpyAsync (unified addressing; Go slices are
// pageable memory that the driver stages in stream order), fills are
// cuMemsetD8/D16/D32Async (8-byte patterns as two strided 32-bit fills), and
// host callbacks run on the processor goroutine after the stream drains.
//
// Grids are counted in work-items as in HSA; a grid that is not a whole
// number of blocks is rejected. ShutDown destroys the streams, modules and
// registrations and releases the primary contexts; the executor goroutines
// are rocr's processors and end with their queues.
//
// Occupancy (spi.Occupancy) is the driver's own calculator,
// cuOccupancyMaxPotentialBlockSize and
// cuOccupancyMaxActiveBlocksPerMultiprocessor, where libcuda has them.
//
// # Tests
//
// The tests that need a device run on a GPU against libcuda, and in CI
// against a fake libcuda built from C by internal/fakecuda (TestFakeCUDA
// runs each again in a process of its own that opens the fake); see
// docs/testing.md.
//
// # Files
//
// driver.go, agent.go (a device), memory.go, code.go (modules and
// kernels), signal.go (signal memory the GPU sees), lib.go (libcuda's entry
// points) as in every driver; the executor by concern: exec.go (the
// executor, its thread and context), launch.go, copy.go and rect.go
// (copies and fills), barrier.go, completion.go (lazy completion signals),
// timestamp.go (GPU clock calibration), teardown.go; fastcall.go is the
// launch path's call into C.
package cuda
