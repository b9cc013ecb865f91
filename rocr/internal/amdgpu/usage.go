package amdgpu

import "github.com/hipgo/hipgo/rocr/codeobj"

// Usage is what one kernel takes of a compute unit, as its code object
// says.
type Usage struct {
	// VGPRs is the vector registers each work-item holds. On gfx90a and
	// gfx94x it counts the AGPRs too (UnifiedVGPRs), as LLVM's
	// .vgpr_count does; on gfx908 it is the larger of the two files.
	VGPRs int
	// SGPRs is the scalar registers each wave holds, VCC, FLAT_SCRATCH
	// and XNACK_MASK included (.sgpr_count). Only GFX9 and older count
	// them against occupancy.
	SGPRs        int
	GroupSegment int // static LDS bytes per work-group (.group_segment_fixed_size)
	Wavefront    int // 32 or 64; 0 means the target's default
	MaxGroupSize int // .max_flat_workgroup_size; 0 means the target's limit
}

// Kernel descriptor fields (AMDGPUUsage, "Kernel Descriptor"):
// compute_pgm_rsrc1 bits 5:0 GRANULATED_WORKITEM_VGPR_COUNT is the
// allocated VGPR blocks minus one; compute_pgm_rsrc3 bits 5:0 on gfx90a
// and later CDNA is ACCUM_OFFSET, the first AGPR divided by 4, minus one.
const (
	rsrc1VGPRBlocks  = 0x3f
	rsrc3AccumOffset = 0x3f
)

// KernelUsage reads a kernel's Usage from its metadata, and from its
// kernel descriptor where that says more: the descriptor's register
// blocks are what the hardware allocates, and it knows the wavefront size
// of code whose metadata lacks one.
func (l *Limits) KernelUsage(k *codeobj.Kernel) Usage {
	u := Usage{
		VGPRs:        int(k.VGPRCount),
		SGPRs:        int(k.SGPRCount),
		GroupSegment: int(k.GroupSegmentSize),
		Wavefront:    int(k.WavefrontSize),
		MaxGroupSize: int(k.MaxFlatWorkgroup),
	}
	d := k.Descriptor
	if d == nil {
		return u
	}
	if u.Wavefront == 0 {
		u.Wavefront = 64
		if d.EnableWavefrontSize32 {
			u.Wavefront = 32
		}
	}
	if u.GroupSegment == 0 {
		u.GroupSegment = int(d.GroupSegmentFixedSize)
	}
	if enc := l.VGPREncodingGranule[u.Wavefront]; enc > 0 {
		u.VGPRs = max(u.VGPRs, (int(d.ComputePgmRsrc1&rsrc1VGPRBlocks)+1)*enc)
	}
	if l.UnifiedAGPRs && k.AGPRCount > 0 {
		arch := (int(d.ComputePgmRsrc3&rsrc3AccumOffset) + 1) * AGPRAlignment
		u.VGPRs = max(u.VGPRs, arch+int(k.AGPRCount))
	}
	return u
}
