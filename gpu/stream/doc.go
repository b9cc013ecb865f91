// Package stream is ordered device work: Stream (one AQL queue, a
// hipStream_t), Event (one signal, a hipEvent_t), WaitEvent (a BARRIER_AND
// packet), asynchronous copies, fills and host callbacks.
//
// Every operation on a stream becomes AQL packets: launches (from
// gpu/module) are KERNEL_DISPATCH packets, Record a BARRIER_AND whose
// completion signal is the event's, WaitEvent a BARRIER_AND on it (more
// than five events chain packets), copies, fills and host functions
// AGENT_DISPATCH packets (the copy engine on rocm). A buffer used on a
// stream after another stream's unfinished work on it gets a BARRIER_AND on
// that work automatically, so dependent streams stay correct without
// hand-placed events while streams that share nothing run concurrently.
//
// Errors: an asynchronous failure (a kernel that panics, faults or times
// out, a driver error) is sticky on its stream: later operations and
// Synchronize return it, naming the kernel; events recorded after it carry
// it too. Other streams are unaffected; a new stream works.
//
// The default stream (DefaultStream) is an ordinary in-order stream, as
// HIP's per-thread default stream: it does not synchronize implicitly with
// other streams.
//
// Streams and events are safe for use from several goroutines; work
// submitted from one goroutine runs in submission order. Synchronize and
// Event.Synchronize block (SynchronizeContext gives up when its context is
// done); Query never blocks. Destroy waits for the stream's work.
package stream
