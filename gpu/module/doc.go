// Package module loads kernels and launches them: Module (hipModule_t),
// Function (hipFunction_t), Function.Launch and LaunchKernelGGL in HIP's
// argument order.
//
// Load takes a Go kernel set (the cpu agent's code), AMDGPU code objects,
// clang offload bundles (compressed or not), HIP fat binaries or PTX text,
// or a Library of these, and loads the form that matches the device's
// target; none is gpu.ErrNoBinaryForGpu listing the targets present. Code
// objects are parsed by rocr/codeobj; their metadata (or the PTX .param
// list, or the Go kernel's declaration) is the kernel's signature.
//
// Every launch is checked before anything is queued: argument count, each
// argument's kind (buffer or value), element type and size, the buffers'
// ownership, grid and block against the device's and the kernel's limits,
// static plus dynamic shared memory. A mistake is an error that names the
// kernel and the argument. The kernarg image, hidden arguments of code
// object v5 included, is the same bytes on every agent.
//
// Typed launches (LaunchArgs with an Args filled by Ptr, ConstPtr, Int32,
// Float32, ...; what cmd/hipgo-gen's launchers emit) write each argument
// into the kernarg image with no ...any and no reflection. Both paths
// allocate nothing: Launch's ...any arguments stay on the caller's stack. Modules and functions are safe for use from several goroutines.
// AMD_LOG_LEVEL logs launches; AMD_SERIALIZE_KERNEL and HIP_LAUNCH_BLOCKING
// make every launch wait for its kernel.
package module
