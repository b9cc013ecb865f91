// Package cuda is hipgo's agent for NVIDIA GPUs, over the CUDA driver API.
// It opens libcuda.so.1 at run time with purego (no cgo, no SDK) and
// registers itself with rocr as the driver "cuda", priority 20: after rocm,
// before cpu. A missing library or device is an error wrapping
// rocr.ErrNotSupported, so rocr.Init goes on to the next driver.
//
// Each CUDA device is one agent with its primary context. Its pools are the
// device memory (coarse-grained, cuMemAlloc), page-locked host memory mapped
// into every device (fine-grained, cuMemHostAlloc), and kernarg memory
// (plain mapped host memory: cuLaunchKernel copies the kernarg image out of
// it through CU_LAUNCH_PARAM_BUFFER_POINTER at launch).
//
// Each rocr queue gets an executor that owns a non-blocking CUDA stream. The
// queue's packet processor calls it in order on one goroutine, which the
// executor locks to its OS thread with the context current; other calls
// (allocation, loading, stream creation) push the context on a locked
// thread and pop it after. Per packet nothing is allocated and nothing is
// reflected: driver calls go through purego.SyscallN with arguments that
// live outside the Go heap.
//
// Signals: rocr's signal slabs are registered with cuMemHostRegister
// (device-mapped, portable), so a completion signal is completed by the GPU
// itself: after the packet's work, a stream memory operation writes the value
// the signal will have after the decrement (read at translation, or tracked
// while an earlier write of the same queue is in flight), together with the
// queue's progress counter. Host waiters poll (Signal.MarkPolled). A
// BARRIER_AND becomes cuStreamWaitValue64(EQ 0) on each dependency, so
// dependencies never round-trip through the host; BARRIER_OR waits on the
// host. A dependency's recorded failure is honoured when it is already
// complete as the barrier is translated. The assumption: while a packet of
// one queue is in flight to complete a signal, nothing else changes that
// signal.
//
// Timestamps: a barrier packet with a completion signal (an event record)
// launches a one-thread kernel that stores %globaltimer, shifted into
// rocr.Now's clock by a calibration at queue creation, as the packet's start
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
package cuda
