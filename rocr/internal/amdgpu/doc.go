// Package amdgpu computes the occupancy of AMDGPU kernels from what their
// code objects say: how many work-groups of a kernel one compute unit
// holds at once (hipOccupancyMaxActiveBlocksPerMultiprocessor) and which
// work-group size fills it best (hipOccupancyMaxPotentialBlockSize).
//
// It is a pure function of a kernel's resource use (Usage, read from
// rocr/codeobj's kernel metadata and descriptor by KernelUsage) and of
// the target's limits (Limits, a table per gfx processor: Lookup). No
// device is asked; the rocm driver answers rocr.Occupancy with it. RDNA
// targets are described in CU mode, the mode HIP compiles for by
// default (-mcumode): a work-group's waves share one CU of two SIMDs and
// its 64 KiB half of the work-group processor's LDS.
//
// Everything here is immutable after package initialization and safe to
// call from several goroutines.
package amdgpu
