// Command gpuinfo shows what hipgo sees on this machine, as rocminfo and
// hipInfo do for ROCm, and says why a GPU is not used.
//
// Usage:
//
//	gpuinfo [--json]                       every agent of every driver, then the drivers that did not open
//	gpuinfo doctor [--json]                checks, one line each: ok, warn or fail, with a hint
//	gpuinfo codeobj [-v] [--json] FILE...  a code object's targets, kernels and argument layouts
//	gpuinfo trace [--json] FILE            per kernel of a HIPGO_TRACE file: launches, total, mean, min and max time
//
// gpuinfo lists each agent rocr.Init opens (index, driver, name, product,
// vendor, device type, ISA, wavefront size, compute units, work-group and
// grid limits, queue sizes, group and total memory, clocks, L2, PCI
// address, UUID, profiling) with its memory pools (segment, flags, size,
// granule, alignment, whether it allocates and whether every agent may
// access it), then each driver's status. It honours HIPGO_DRIVER and
// ROCR_VISIBLE_DEVICES as every hipgo program does; HIP_VISIBLE_DEVICES and
// CUDA_VISIBLE_DEVICES apply at the gpu layer, so the list shows agents they
// hide. --json prints the same for scripts.
//
// gpuinfo doctor looks at the GPU libraries, device nodes, kernel drivers,
// versions, environment and driver statuses (see internal/doctor) and exits
// 0 when a hipgo program here gets a GPU, 1 when it runs on the cpu agent or
// gets no device.
//
// gpuinfo codeobj reads AMDGPU ELF code objects, clang offload bundles
// (compressed or not), HIP fat binaries and PTX with rocr/codeobj and prints
// one table of kernels by target and each kernel's argument layout once for
// the targets that share it; hidden arguments are summarised in a line
// (-v lists them, with register counts and kernel descriptors).
//
// gpuinfo trace sums the kernel dispatches of a trace file that
// HIPGO_TRACE (or rocr.Tracer.WriteTo) wrote, as nsys's kernel summary
// does: kernel, launches, total, mean, min and max time, and each
// kernel's share of the total (kerneltime.Read).
//
// The drivers come from importing github.com/hipgo/hipgo/gpu, so a driver
// added there appears here without a change.
package main
