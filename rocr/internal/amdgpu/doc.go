// Package amdgpu computes the occupancy of AMDGPU kernels from what their
// code objects say: how many work-groups of a kernel one compute unit
// holds at once (hipOccupancyMaxActiveBlocksPerMultiprocessor) and which
// work-group size fills it best (hipOccupancyMaxPotentialBlockSize).
//
// It is a pure function of a kernel's resource use (Usage, read from
// rocr/codeobj's kernel metadata and descriptor by KernelUsage) and of
// the target's limits (Limits, a table per gfx processor: Lookup). No
// device is asked; the rocm driver answers spi.Occupancy with it.
//
// RDNA targets are described in CU mode: a work-group's waves share one
// CU's two SIMDs, its 64 KiB half of the work-group processor's LDS and
// its 16 barriers, and ROCR counts compute units as CUs. Code compiled for
// WGP mode (LLVM's default on gfx10 and later; the descriptor's
// COMPUTE_PGM_RSRC1.WGP_MODE) may spread over both CUs of a work-group
// processor; counted per CU it gets half of the processor, which leaves
// out at most one work-group per processor, where its wave slots or LDS
// do not divide evenly between its two CUs.
//
// Everything here is immutable after package initialization and safe to
// call from several goroutines.
package amdgpu
