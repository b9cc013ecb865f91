package kernels

import (
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// ReduceSumArgs is the kernarg layout of
// reduce_sum(const float *in, float *partial, int n). The kernel also takes
// blockDim.x*4 bytes of dynamic group memory.
type ReduceSumArgs struct {
	In      rocr.ConstPtr[float32] // offset 0
	Partial rocr.Ptr[float32]      // offset 8
	N       int32                  // offset 16
}

// ReduceSumKernel is the first pass of a sum (src/reduce.hip): work-item
// tid of group b sums in[i] for i = b*blockDim.x + tid, stepping by
// gridDim.x*blockDim.x, the group reduces its blockDim.x sums by a tree in
// dynamic group memory, and partial[b] receives the group's total.
// blockDim.x must be a power of two. The block is one-dimensional, as in
// the HIP source.
//
// It is written as the cpu agent runs HIP code: each stretch between two
// __syncthreads() is one loop over the group's work-items, and the
// per-work-item state lives in group memory.
var ReduceSumKernel = cpu.Define("reduce_sum", func(g *cpu.Group, a *ReduceSumArgs) {
	bs := g.Size[0]
	sdata := cpu.SharedFloat32(g, 0, bs) // extern __shared__ float sdata[]
	n := int(a.N)
	first := g.ID[0] * bs
	stride := g.Count[0] * bs

	// Each work-item's grid-stride sum, into sdata[tid]. The loops are
	// interchanged (a row of the group's work-items per step) so that memory
	// is read in order; each work-item still adds its elements in the order
	// the HIP loop does, so the sums are the same, bit for bit. Work-items
	// missing from a partial group (HIP never launches one) add nothing and
	// leave 0 in their sdata slot.
	clear(sdata)
	if items := g.Items(0); first < n {
		in := a.In.Slice(g, first, n)
		for base := 0; base < len(in); base += stride {
			row := in[base:min(base+items, len(in))]
			for tid, v := range row {
				sdata[tid] += v
			}
		}
	}
	// __syncthreads()

	// The tree: one loop over the active work-items per step, each step
	// ending in a __syncthreads().
	for s := bs / 2; s > 0; s >>= 1 {
		for tid := 0; tid < s; tid++ {
			sdata[tid] += sdata[tid+s]
		}
	}

	// Work-item 0 writes the group's partial sum.
	*a.Partial.At(g, g.ID[0]) = sdata[0]
})
