// Package gpu is the entry point of hipgo's HIP-style API: devices, their
// properties, launch dimensions and HIP's error codes. Streams, events and
// asynchronous copies are in gpu/stream, memory in gpu/buffer, modules and
// launches in gpu/module.
//
// The runtime opens on the first call that needs a device, as HIP's does
// (Init gets the error early). Devices are every GPU that the cuda and rocm
// drivers find, in ROCR_VISIBLE_DEVICES and HIP_VISIBLE_DEVICES /
// CUDA_VISIBLE_DEVICES order, then the cpu agent, which is always present:
// Default is the first GPU, or the cpu agent when there is none
// (HIPGO_DEVICE picks another). Shutdown releases everything (hipDeviceReset
// on every device); objects made before it return ErrContextIsDestroyed,
// and the next call that needs a device opens the runtime again.
// Device.Reset does the same for one device and keeps it open: what was
// made on it before returns ErrContextIsDestroyed, and the device takes
// new work (how a program survives a kernel that faulted on a GPU).
//
// Errors are *Error values with HIP's hipError_t numbers (ErrorCode), and
// the HSA status underneath is kept (Error.Status). Each code has one Go
// name, HIP's without its prefix: hipErrorInvalidValue is ErrInvalidValue,
// hipSuccess is Success. That name is the sentinel too, since an ErrorCode
// is an error: errors.Is(err, gpu.ErrInvalidValue) holds for an *Error of
// that code, for an error wrapping one and for the bare code that queries
// return, and gpu.CodeOf(err) == gpu.ErrInvalidValue says the same. An
// ErrorCode prints as HIP's name ("hipErrorInvalidValue"). ErrNotOwner is
// the one sentinel that is not a code: rocr's, for coarse-grained memory
// used by a device that does not own it (its code is ErrInvalidValue).
//
// # Layout
//
// The public packages hold what a HIP user calls; the plumbing they share
// lives under gpu/internal, which nothing outside gpu/ can import.
// Imports run one way:
//
//	gpu/module   Module, Function, signatures, kernarg encoding, Launch,
//	   |         LaunchKernelGGL, typed launches (Function.Args)
//	gpu/stream   Stream, Event, WaitEvent, async copies, fills, host callbacks
//	   |
//	gpu/buffer   Buffer[T], Host[T], synchronous copies and fills, Transfer
//	   |
//	gpu/internal/core   memory objects, fences and their signal pool, the
//	   |         submitter (stream lock, tail, BARRIER_AND placement, dispatch
//	   |         and agent-work commit), read/write dependency tracking
//	gpu          Device, Properties, Dim3, errors, device selection
//	   |
//	gpu/internal/debug, devstate, live   debug switches, a device's
//	   |         bookkeeping (its streams, per-device values, resets), which
//	   |         Device embeds, leak tracking for gputest
//	rocr         the runtime
//	   |
//	internal/    leaf helpers that rocr, its drivers and gpu share (hostmem,
//	             hostref, errtext, vendorlib, rocrhook): they import no
//	             rocr or gpu package
//
// A public handle is defined on its internal state where a package above
// needs that state: stream.Stream on core.Stream, buffer.View and
// buffer.Volume on core.Region. Those packages convert, typed and at no
// cost, as in (*core.Stream)(s); no hook is installed for them. A Device
// embeds its bookkeeping, a devstate.State, which devstate.Of returns
// from the device. A buffer's memory object is found by core.MemOf, and
// the submitter of a stream that package buffer holds as its Stream
// interface by core.StreamOf. Device.Agent stays public: it is the rocr
// agent behind a device, for programs that mix this API with the runtime
// below it (as HIP programs use HSA interop). module.Shared is how a
// package that ships kernels (kernels, a user's own library) keeps them
// loaded once per device.
//
// All functions and methods are safe for use from several goroutines.
// Device.Synchronize blocks until every stream of the device is idle.
package gpu
