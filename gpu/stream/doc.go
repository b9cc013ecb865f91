// Package stream is ordered device work: Stream (one AQL queue, a
// hipStream_t), Event (one signal, a hipEvent_t), WaitEvent (a BARRIER_AND
// packet), asynchronous copies, fills and host callbacks.
//
// Every operation on a stream becomes AQL packets: launches (from
// gpu/module) are KERNEL_DISPATCH packets, Record a BARRIER_AND whose
// completion signal is the event's, WaitEvent a BARRIER_AND on it (more
// than five events chain packets), copies, fills and host functions
// AGENT_DISPATCH packets (which rocr hands to the copy engine on rocm).
// An event made with EventInterprocess has one signal that other
// processes open (IPCHandle, OpenIPCEvent): its records in any process
// complete it, and WaitEvent in any process waits for them; work across
// processes is ordered through such events (docs/ipc.md).
//
// Dependencies know reads from writes. A kernel reads a buffer through a
// read-only pointer (const T* in its source, .is_const or .access
// read_only in its metadata, rocr.ConstPtr in a Go kernel, module.Args'
// ConstPtr); a copy reads its source and writes its destination; every
// other use writes. A reader waits for the buffer's last unfinished
// writer on another stream, a writer for that writer and every reader
// since; readers on different streams run concurrently. Each wait is a
// BARRIER_AND inserted automatically (HIP leaves this to the program).
// ManualDeps (a stream flag) and Buffer.SetManualDeps opt out, for code
// that orders streams with events itself; HIPGO_CHECK_DEPS=1 inserts no
// barrier and instead fails a launch or copy whose dependency the program
// did not order with WaitEvent, naming both operations and streams.
//
// Errors: an asynchronous failure (a kernel that panics, faults or times
// out, a driver error) is sticky on its stream: later operations and
// Synchronize return it, naming the kernel; events recorded after it carry
// it too. The call that waited for the failed work returns the failure
// itself; a later call, which did not fail itself, says so: "launch:
// stream 3 failed earlier: …" (a stream's number is its queue's id), with
// the failure underneath for errors.Is and errors.As. Other streams are
// unaffected; a new stream works.
//
// A failure is reported by the call that observes it, as in HIP, and does
// not poison memory: once the stream has returned it (Synchronize, Query,
// a later operation on the stream), the buffers the failed work used copy,
// fill, launch on other streams and free normally, holding whatever the
// work left in them. A synchronous copy, fill, Transfer or Free that waits
// for failed work the stream has not reported yet returns the failure
// (without copying), and the buffer works from the next call on. Only a
// device that is lost (gpu.Device.Reset) makes its buffers unusable.
//
// The default stream (DefaultStream) is an ordinary in-order stream, as
// HIP's per-thread default stream: it does not synchronize implicitly with
// other streams. Legacy is the stream that does (hipStreamLegacy): its work
// waits for all earlier work of every blocking stream of its device, and
// their later work waits for it; NonBlocking streams are exempt. Until a
// program calls Legacy, no stream pays for it; afterwards a blocking
// stream's submission shares a device-wide lock with the others, which
// the legacy stream's submissions take alone.
//
// A host function or Go kernel must not wait for its own stream: its
// Synchronize or Destroy of that stream, a submission that finds the
// stream's queue full, a synchronous copy, fill, Transfer or Free of a
// buffer that work queued after it uses, and gpu.Shutdown from it return
// ErrNotPermitted
// (what CUDA answers API calls from a host function) instead of waiting
// for ever. Waits through other streams or events are not checked.
//
// Streams and events are safe for use from several goroutines; work
// submitted from one goroutine runs in submission order. Synchronize and
// Event.Synchronize block (SynchronizeContext gives up when its context is
// done); Query never blocks. Destroy waits for the stream's work, as long
// as it moves on (a kernel that does not return is abandoned: see
// Stream.Destroy).
//
// A stream or event dropped undestroyed is released by a backstop
// (runtime.AddCleanup) whenever the garbage collector gets to it: a
// stream once the work queued on it completed, as Destroy would. Until
// then Device.Synchronize waits for that work and the legacy stream
// orders after it. gpu/gputest reports such streams as a test's leaks;
// destroy what you make.
package stream
