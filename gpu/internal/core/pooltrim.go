package core

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
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

// trim returns completed free blocks to the device until at most keep
// bytes stay reserved, and returns how many bytes it released.
func (p *MemPool) trim(keep uint64) uint64 {
	p.mu.Lock()
	var out []*rocr.Allocation
	var released uint64
	p.each(func(c uint64, lp *[]block) {
		l := *lp
		j := 0
		for _, b := range l {
			if p.stats.Reserved > keep && (b.fence == nil || b.fence.Done()) {
				if b.fence != nil {
					b.fence.Release()
				}
				out = append(out, b.al)
				p.stats.Reserved -= c
				p.cached -= c
				released += c
				continue
			}
			l[j] = b
			j++
		}
		clear(l[j:])
		*lp = l[:j]
	})
	p.mark()
	p.mu.Unlock()
	for _, al := range out {
		_ = al.Free()
	}
	return released
}

// Trim releases unused memory until at most keep bytes stay reserved
// (hipMemPoolTrimTo); memory whose free has not completed stays.
func (p *MemPool) Trim(keep uint64) { p.trim(keep) }

// Synchronize trims the pool to its release threshold: the device's
// synchronization is the point where HIP returns memory to the system.
func (p *MemPool) Synchronize() error {
	p.trim(p.ReleaseThreshold())
	return nil
}

// ReleaseThreshold is the reserved memory the pool keeps across
// synchronizations (hipMemPoolAttrReleaseThreshold), bytes.
func (p *MemPool) ReleaseThreshold() uint64 { return locked(&p.mu, &p.threshold) }

// SetReleaseThreshold sets ReleaseThreshold.
func (p *MemPool) SetReleaseThreshold(n uint64) {
	p.mu.Lock()
	p.threshold = n
	p.mark()
	p.mu.Unlock()
}
