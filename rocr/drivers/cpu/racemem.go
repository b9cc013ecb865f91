package cpu

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// goHeap backs pool memory with Go heap memory under -race, where the race
// detector watches only the Go heap: kernels' and the host's accesses to
// device memory are then checked like any other. Go's heap does not move
// objects, so an address stays valid for as long as live keeps its block
// reachable. Small blocks are reused by size class, as the mapped heap
// does, so allocation cost does not follow the collector; the pool's lock
// orders a block's last use before Free with its next life, and a kernel
// still using a freed block races with its next owner, as it should.
type goHeap struct {
	mu   sync.Mutex
	live map[uintptr][]byte
	free [numClasses][][]byte
}

// alloc returns a block of size bytes aligned to the granule.
func (h *goHeap) alloc(size uint64) uintptr {
	const align = 1 << minClassShift
	c := classOf(size)
	h.mu.Lock()
	defer h.mu.Unlock()
	var b []byte
	if c < numClasses {
		if n := len(h.free[c]); n > 0 {
			b = h.free[c][n-1]
			h.free[c] = h.free[c][:n-1]
		} else {
			size = 1 << (c + minClassShift)
		}
	}
	if b == nil {
		b = make([]byte, size+align)
	}
	off := (align - uintptr(unsafe.Pointer(unsafe.SliceData(b)))%align) % align
	p := uintptr(unsafe.Pointer(&b[off]))
	if h.live == nil {
		h.live = map[uintptr][]byte{}
	}
	h.live[p] = b
	return p
}

func (h *goHeap) release(p uintptr, size uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.live[p]
	if !ok {
		return
	}
	delete(h.live, p)
	if c := classOf(size); c < numClasses {
		h.free[c] = append(h.free[c], b)
	}
}

func (h *goHeap) close() {
	h.mu.Lock()
	h.live = nil
	h.free = [numClasses][][]byte{}
	h.mu.Unlock()
}

// Work-groups claim chunks with an atomic add. The race detector reads
// every atomic on Go memory as a release and an acquire, which would order
// each group after the groups claimed before it and hide races between
// them. Under -race the counter lives outside the Go heap, where the
// detector ignores atomics: groups of a dispatch stay unordered, as on a
// GPU, and the dispatch's start and end (the channel send, the helpers'
// count) still order them with the packets around it.

// claimChunk takes the next chunk of work-groups and returns its first.
func (j *job) claimChunk() int64 {
	if raceflag.Enabled && j.hidden != 0 {
		return atomic.AddInt64((*int64)(hostmem.At(j.hidden)), j.chunk) - j.chunk
	}
	return j.next.Add(j.chunk) - j.chunk
}

// stopClaims makes every later claim find no work left.
func (j *job) stopClaims() {
	if raceflag.Enabled && j.hidden != 0 {
		atomic.StoreInt64((*int64)(hostmem.At(j.hidden)), j.total)
		return
	}
	j.next.Store(j.total)
}

// resetClaims readies the counter for a new dispatch.
func (j *job) resetClaims() error {
	if raceflag.Enabled {
		if j.hidden == 0 {
			p, err := spi.MapAnonymous(hiddenSize)
			if err != nil {
				return err
			}
			j.hidden = p
		}
		atomic.StoreInt64((*int64)(hostmem.At(j.hidden)), 0)
		return nil
	}
	j.next.Store(0)
	return nil
}

// closeClaims unmaps the -race counter.
func (j *job) closeClaims() error {
	if j.hidden == 0 {
		return nil
	}
	p := j.hidden
	j.hidden = 0
	return spi.Unmap(p, hiddenSize)
}
