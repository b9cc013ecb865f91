package core

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
)

// HIP and CUDA return a stream-ordered pool's freed memory beyond its
// release threshold at every synchronization: a stream's, an event's or
// the device's. The device's comes through the pool's Synchronize; the
// stream's and the event's through TrimPools.
//
// A synchronization is on the launch path (launch, then Synchronize), so
// TrimPools costs one atomic load unless some pool holds freed blocks
// while it reserves more than its threshold: a pool counts itself in its
// device's set (and the process's total) while that is so, and only then
// does TrimPools take a lock, the device's own.

// trimPending counts the pools of every device that may have something
// to trim: the fast path's one load.
var trimPending atomic.Int32

// devPools is one device's open pools.
type devPools struct {
	pending atomic.Int32 // pools of the device with something to trim
	mu      sync.Mutex
	l       []*MemPool
}

// poolsByDev maps a *gpu.Device to its *devPools.
var poolsByDev sync.Map

// poolsOf returns dev's set, made on first use.
func poolsOf(dev *gpu.Device) *devPools {
	if v, ok := poolsByDev.Load(dev); ok {
		return v.(*devPools)
	}
	v, _ := poolsByDev.LoadOrStore(dev, &devPools{})
	return v.(*devPools)
}

func (s *devPools) add(p *MemPool) {
	s.mu.Lock()
	s.l = append(s.l, p)
	s.mu.Unlock()
}

func (s *devPools) remove(p *MemPool) {
	s.mu.Lock()
	if i := slices.Index(s.l, p); i >= 0 {
		s.l = slices.Delete(s.l, i, i+1)
	}
	s.mu.Unlock()
}

// mark recounts whether p has something to trim: freed blocks while it
// reserves more than its threshold. p is locked; every change of the
// free lists, the reserve or the threshold calls it.
func (p *MemPool) mark() {
	want := !p.closed && p.cached > 0 && p.stats.Reserved > p.threshold
	if want == p.over {
		return
	}
	p.over = want
	d := int32(-1)
	if want {
		d = 1
	}
	p.set.pending.Add(d)
	trimPending.Add(d)
}

// TrimPools trims dev's pools to their release thresholds, after a stream
// or event synchronization of dev returned.
func TrimPools(dev *gpu.Device) {
	if trimPending.Load() == 0 || dev == nil {
		return
	}
	v, ok := poolsByDev.Load(dev)
	if !ok {
		return
	}
	s := v.(*devPools)
	if s.pending.Load() == 0 {
		return
	}
	var buf [8]*MemPool
	s.mu.Lock()
	ps := append(buf[:0], s.l...)
	s.mu.Unlock()
	for _, p := range ps {
		p.trimToThreshold()
	}
}

// trimToThreshold trims p to its release threshold when it has something
// to trim.
func (p *MemPool) trimToThreshold() {
	p.mu.Lock()
	over, keep := p.over, p.threshold
	p.mu.Unlock()
	if over {
		p.trim(keep)
	}
}
