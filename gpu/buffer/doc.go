// Package buffer is device memory: Buffer[T] from a device's
// coarse-grained pool (hipMalloc) and Host[T], page-locked fine-grained host
// memory that every device may use (hipHostMalloc), with synchronous copies
// and fills (hipMemcpy, hipMemset). Asynchronous copies are in gpu/stream.
//
// Pitched and Pitched3D are 2-D and 3-D allocations whose rows are padded
// (hipMallocPitch, hipMalloc3D). Copy2D and Copy3D move rectangles and
// boxes between any two of a Go slice, a Host, a Buffer and a pitched
// allocation, each end described by a View (pointer and pitch) or a Volume
// (pointer, pitch and rows per slice, hipPitchedPtr), positioned with At.
//
// Sub is a view of part of a Buffer, Host or Managed (b.Sub(off, n), what
// d_data + off is in HIP): taken wherever its buffer is, bounded by its
// own range. Dependencies are tracked by byte range, so work on disjoint
// views of one buffer, on different streams, runs concurrently.
//
// Ownership: a Buffer belongs to the device that allocated it. Using it on
// another device is an error wrapping gpu.ErrNotOwner until Transfer (or
// peer access, gpu.Device.EnablePeerAccess); the host reaches it only by
// copying, on every driver, the cpu agent included. Host memory is read and
// written through Host.Slice; order such access after device work with a
// stream or event synchronize, as in HIP.
//
// Managed memory (Managed, hipMallocManaged) is the exception to single
// ownership: the host and every device address it, the driver moves its
// pages where they are used, and no Transfer is ever needed. Launches and
// copies on any device may use it, and its dependency tracking orders
// them as it orders a Buffer's. The host reaches it through Managed.Slice,
// which first waits for the device work the tracking knows of (the
// synchronize a HIP program does before touching managed memory on the
// host); until later device work on it completes, the host leaves the
// slice alone. stream.Prefetch and Managed.Advise place it, never change
// it.
//
// Memory shared with other processes (hipIpcGetMemHandle) is opt-in:
// NewShareable allocates a Buffer whose IPCHandle another process opens
// with OpenIPC, as a Buffer of its own device whose dependencies it
// tracks itself; Free closes it there. Handles are checked field by field
// before anything is opened (docs/ipc.md).
//
// Every buffer remembers the packets that use it: its last writer and the
// readers since (a bounded set). Synchronous copies, Free and Transfer
// wait for them first; gpu/stream uses them to insert the BARRIER_AND
// that orders work on two streams sharing a buffer (SetManualDeps opts
// out). A synchronous copy or fill is recorded among them too, as a
// stream operation is, from whatever goroutine calls it: a kernel that
// another goroutine launches while the copy runs waits for it, so a read
// never sees half a launch and a launch never sees half a fill. A launch
// racing Free either is waited for or fails: it never writes into memory
// a new buffer got.
//
// Lifetimes: Free waits for pending work and releases the memory; a second
// Free, or any use after it, is an error, never a crash. Memory lives
// outside the Go heap, so the garbage collector never moves it: free what
// you allocate (gpu.Shutdown frees everything left). A Buffer, Host,
// Managed or opened IPC buffer dropped unfreed is released by a backstop
// (runtime.AddCleanup) after the work it recorded, whenever the garbage
// collector gets to it; pool memory (NewAsync) returns to its pool the
// same way. Graph memory has none: its graph owns it.
//
// Buffers are safe for use from several goroutines; synchronous copies and
// fills block until the copy is done. The context variants of the copies
// between a buffer and a Go slice (CopyFromContext, CopyToContext, their
// …AtContext forms and ToSliceContext) give up when their context is done
// while they wait for the work pending on the buffer (or for another
// synchronous copy on the device), returning an error that wraps
// gpu.ErrNotReady and the context's error: they have copied nothing, and
// the slice and the buffer are as they were. Once the copy has started it
// runs to its end and the call returns after it, since the engine would
// otherwise go on touching memory the caller has taken back.
package buffer
