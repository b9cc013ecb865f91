package array

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// GPU launch shape of the package's kernels: blocks of 256 work-items
// (a multiple of every target's warp) in a grid-stride loop over at most
// 16 blocks a multiprocessor, as gpu/prim's transforms launch.
const blockSize = 256

// forceGPUShape makes the cpu agent launch the GPU shape (blocks of
// many work-items in a grid-stride loop), so that the cpu's tests cover
// the GPU's indexing too.
var forceGPUShape = false

// launchShape is an element-wise launch over n elements on s: on the cpu
// agent, blocks of one work-item over spans of at least 2^15 elements,
// about four a worker; on a GPU, the grid-stride shape (span 0).
func launchShape(s *stream.Stream, n int) (grid, block gpu.Dim3, span int) {
	p := s.Device().Properties()
	units := max(1, p.MultiProcessorCount)
	if p.IsCPU && !forceGPUShape {
		blocks := min(max(1, ceilDiv(n, 1<<15)), 4*units)
		span = max(1, ceilDiv(n, blocks))
		return gpu.D1(uint32(ceilDiv(max(n, 1), span))), gpu.D1(1), span
	}
	return gpu.D1(uint32(max(1, min(ceilDiv(n, blockSize), 16*units)))), gpu.D1(blockSize), 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
