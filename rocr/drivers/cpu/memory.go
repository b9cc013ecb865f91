package cpu

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"math/bits"
	"sync"

	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// heap hands out pool memory mapped outside the Go heap (in the Go heap
// under -race: goHeap). Small blocks come
// from power-of-two size classes carved out of 4 MiB chunks and are reused;
// large ones are mapped and unmapped one by one.
type heap struct {
	mu     sync.Mutex
	free   [numClasses][]uintptr
	chunk  uintptr // current chunk's next free byte
	left   uintptr
	chunks []uintptr // every chunk mapped, unmapped by close

	// watched: under -race the blocks come from the Go heap instead (see
	// goHeap). Kernarg pools stay mapped: their slots are the runtime's,
	// reused in queue order the detector cannot see.
	watched bool
	gh      goHeap
	// device: coarse-grained device memory, which the sanitizer tracks.
	device bool
}

const (
	minClassShift = 8  // 256 bytes: the allocation granule
	maxClassShift = 20 // 1 MiB: larger blocks are mapped directly
	numClasses    = maxClassShift - minClassShift + 1
	chunkBytes    = 4 << 20
)

func classOf(size uint64) int {
	if size <= 1<<minClassShift {
		return 0
	}
	return bits.Len64(size-1) - minClassShift
}

func (h *heap) alloc(size uint64) (uintptr, error) {
	if raceflag.Enabled && h.watched {
		return h.gh.alloc(size), nil
	}
	c := classOf(size)
	if c >= numClasses {
		return spi.MapAnonymous(uintptr(size))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.free[c]); n > 0 {
		p := h.free[c][n-1]
		h.free[c] = h.free[c][:n-1]
		return p, nil
	}
	bs := uintptr(1) << (c + minClassShift)
	if h.left < bs {
		base, err := spi.MapAnonymous(chunkBytes)
		if err != nil {
			return 0, err
		}
		h.chunk, h.left = base, chunkBytes
		h.chunks = append(h.chunks, base)
	}
	p := h.chunk
	h.chunk += bs
	h.left -= bs
	return p, nil
}

func (h *heap) release(p uintptr, size uint64) error {
	if raceflag.Enabled && h.watched {
		h.gh.release(p, size)
		return nil
	}
	c := classOf(size)
	if c >= numClasses {
		return spi.Unmap(p, uintptr(size))
	}
	h.mu.Lock()
	h.free[c] = append(h.free[c], p)
	h.mu.Unlock()
	return nil
}

// close unmaps every chunk: the runtime is shutting down and every block
// was freed. A second close does nothing (the host pool is every agent's).
func (h *heap) close() error {
	if raceflag.Enabled && h.watched {
		h.gh.close()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var first error
	for _, c := range h.chunks {
		if err := spi.Unmap(c, chunkBytes); err != nil && first == nil {
			first = err
		}
	}
	h.chunks, h.chunk, h.left = nil, 0, 0
	h.free = [numClasses][]uintptr{}
	return first
}

// pool is one of the agent's memory pools.
type pool struct {
	info hsa.PoolInfo
	heap *heap
}

func (p *pool) Info() hsa.PoolInfo { return p.info }

func (p *pool) Allocate(size uint64) (uintptr, error) {
	ptr, err := p.heap.alloc(size)
	if err == nil && p.heap.device && spi.Sanitizing() {
		trackAllocation(ptr, size)
	}
	return ptr, err
}

func (p *pool) Free(ptr uintptr, size uint64) error {
	if runaways.live.Load() != 0 && holdFree(p, ptr, size) {
		return nil
	}
	return p.free(ptr, size)
}

func (p *pool) free(ptr uintptr, size uint64) error {
	untrackAllocation(ptr)
	return p.heap.release(ptr, size)
}
