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
//
// Errors are *Error values with HIP's hipError_t numbers (ErrorCode); each
// ErrorCode is a sentinel for errors.Is, and the HSA status underneath is
// kept (Error.Status). ErrNotOwner is rocr's: coarse-grained memory used by
// a device that does not own it.
//
// All functions and methods are safe for use from several goroutines.
// Device.Synchronize blocks until every stream of the device is idle.
package gpu
