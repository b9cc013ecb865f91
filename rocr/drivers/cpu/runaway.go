package cpu

import (
	"sync"
	"sync/atomic"
)

// An abandoned kernel (rocr.Queue.Abandon) runs on, on its goroutine, and
// may still touch any memory of the agent: its arguments, its kernarg
// segment, any address it computes. So while one runs, memory freed goes
// back to no heap and no heap is unmapped: the frees and closes wait
// until the last abandoned kernel returns.
var runaways struct {
	live atomic.Int64 // abandoned kernels still running
	mu   sync.Mutex
	n    int
	// What waits for them, in order: frees, then closes.
	frees  []heldFree
	closes []*heap
}

type heldFree struct {
	p    *pool
	ptr  uintptr
	size uint64
}

// Runaways is the number of abandoned Go kernels still running: kernels
// given up on after their timeout, or when their queue was destroyed
// (gpu.Shutdown included), that have not returned yet.
func Runaways() int { return int(runaways.live.Load()) }

func runawayStarted() {
	runaways.mu.Lock()
	runaways.n++
	runaways.live.Store(int64(runaways.n))
	runaways.mu.Unlock()
}

// runawayEnded releases what waited for the last abandoned kernel.
func runawayEnded() {
	runaways.mu.Lock()
	runaways.n--
	runaways.live.Store(int64(runaways.n))
	var frees []heldFree
	var closes []*heap
	if runaways.n == 0 {
		frees, closes = runaways.frees, runaways.closes
		runaways.frees, runaways.closes = nil, nil
	}
	runaways.mu.Unlock()
	for _, f := range frees {
		_ = f.p.free(f.ptr, f.size)
	}
	for _, h := range closes {
		_ = h.close()
	}
}

// holdFree keeps a free for later while an abandoned kernel runs; false:
// none runs, free now.
func holdFree(p *pool, ptr uintptr, size uint64) bool {
	runaways.mu.Lock()
	defer runaways.mu.Unlock()
	if runaways.n == 0 {
		return false
	}
	runaways.frees = append(runaways.frees, heldFree{p, ptr, size})
	return true
}

// holdClose keeps a heap's close for later while an abandoned kernel runs.
func holdClose(h *heap) bool {
	runaways.mu.Lock()
	defer runaways.mu.Unlock()
	if runaways.n == 0 {
		return false
	}
	runaways.closes = append(runaways.closes, h)
	return true
}
