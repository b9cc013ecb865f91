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
// stream's and the event's through TrimPools, which costs one atomic load
// while no pool is open.

// openPools is every open MemPool.
var openPools poolSet

type poolSet struct {
	n  atomic.Int32
	mu sync.Mutex
	l  []*MemPool
}

func (s *poolSet) add(p *MemPool) {
	s.mu.Lock()
	s.l = append(s.l, p)
	s.n.Store(int32(len(s.l)))
	s.mu.Unlock()
}

func (s *poolSet) remove(p *MemPool) {
	s.mu.Lock()
	if i := slices.Index(s.l, p); i >= 0 {
		s.l = slices.Delete(s.l, i, i+1)
	}
	s.n.Store(int32(len(s.l)))
	s.mu.Unlock()
}

// TrimPools trims dev's pools to their release thresholds, after a stream
// or event synchronization of dev returned.
func TrimPools(dev *gpu.Device) {
	if openPools.n.Load() == 0 || dev == nil {
		return
	}
	var buf [8]*MemPool
	ps := buf[:0]
	openPools.mu.Lock()
	for _, p := range openPools.l {
		if p.dev == dev {
			ps = append(ps, p)
		}
	}
	openPools.mu.Unlock()
	for _, p := range ps {
		p.trim(p.ReleaseThreshold())
	}
}
