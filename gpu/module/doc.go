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
// allocate nothing: Launch's ...any arguments stay on the caller's stack.
// Modules and functions are safe for use from several goroutines.
//
// # Arguments by value
//
// A scalar parameter takes a Go number of its size and kind; a named type
// (type Celsius float32) is taken by its underlying type, and int, uint
// and uintptr are 64-bit. A struct parameter (`struct Pair { float x;
// double y; }`: PTX `.param .align 8 .b8 p[16]`, AMDGPU by_value of size
// 16, a Go kernel's struct field) takes a Go struct or array passed to
// Launch, Args.Value or ArgStruct. Its bytes are the kernel's when the Go
// type lays out as C does, which holds for fixed-size numbers, bool,
// complex numbers, and arrays and structs of these, with the fields in the
// C declaration's order: each field at the next multiple of its size (its
// alignment), the whole padded to the largest alignment. Go types that
// could lay out otherwise are refused with an error that names the field:
// pointers, strings, slices, interfaces, maps, channels, functions and
// zero-size fields. A struct must match the parameter's size and, where
// the signature states it (PTX .align, Go kernels), its alignment; a Go
// kernel's struct parameter takes that struct type. A byte array ([16]byte)
// is taken by size alone, as raw bytes the caller laid out. A kernel's
// parameters may take 4 KB on every device, and 32,764 bytes on cuda
// devices with a CUDA 12.1 driver and compute capability 7.0 or later;
// past the limit a launch is refused with both sizes named.
//
// # Launch attributes
//
// LaunchCooperativeKernel (hipLaunchCooperativeKernel) launches a grid
// whose blocks are all resident at once, so they may meet at a grid-wide
// barrier; a larger grid than MaxCooperativeBlocks is
// gpu.ErrCooperativeLaunchTooLarge. LaunchKernelEx and Function.LaunchEx
// take a LaunchConfig whose fields are the launch attributes: Cooperative,
// and Cluster, thread-block clusters on devices that have them (sm_90).
//
// AMD_LOG_LEVEL logs launches; AMD_SERIALIZE_KERNEL and HIP_LAUNCH_BLOCKING
// make every launch wait for its kernel.
package module
