package fft

import (
	"container/list"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// DefaultCacheSize is the number of plans a device's plan cache keeps
// until SetCacheSize changes it (cupy.fft's default too).
const DefaultCacheSize = 16

// planCache is a device's least-recently-used plans, by shape and layout
// (cupy.fft.config's plan cache). Its plans belong to it: it destroys the
// plan it evicts, and all of them when cleared or when the device is
// released (Shutdown, Reset).
type planCache struct {
	mu    sync.Mutex
	size  int
	lru   list.List // of *Plan, the most recently used first
	byKey map[cacheKey]*list.Element
}

// cacheKey is a plan's shape and layout.
type cacheKey struct {
	kind                                 Kind
	rank, batch                          int
	dims, inEmbed, outEmbed              [MaxDims]int
	advanced                             bool
	inStride, inDist, outStride, outDist int
}

func keyOf(kind Kind, dims []int, batch int, l *Layout) (cacheKey, bool) {
	k := cacheKey{kind: kind, rank: len(dims), batch: batch}
	if len(dims) > MaxDims {
		return k, false
	}
	copy(k.dims[:], dims)
	if l != nil && (l.InEmbed != nil || l.OutEmbed != nil) {
		if len(l.InEmbed) > MaxDims || len(l.OutEmbed) > MaxDims {
			return k, false
		}
		k.advanced = true
		copy(k.inEmbed[:], l.InEmbed)
		copy(k.outEmbed[:], l.OutEmbed)
		// Embed[0] is not used: plans that differ there are one plan.
		k.inEmbed[0], k.outEmbed[0] = 0, 0
		k.inStride, k.inDist, k.outStride, k.outDist = l.InStride, l.InDist, l.OutStride, l.OutDist
	}
	return k, true
}

type cacheValueKey struct{}

func cacheOf(dev *gpu.Device) (*planCache, error) {
	if dev == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidDevice, "fft plan cache", "nil device")
	}
	if err := dev.Valid(); err != nil {
		return nil, err
	}
	v, err := core.DeviceValue(dev, cacheValueKey{}, func() (any, func() error, error) {
		c := &planCache{size: DefaultCacheSize, byKey: map[cacheKey]*list.Element{}}
		return c, func() error { c.clear(); return nil }, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*planCache), nil
}

// Cached returns dev's cached plan of this kind, shape, batch and layout,
// making it (NewPlanMany) and caching it on first use, as cupy.fft does:
// a program that transforms arrays of a few shapes pays for each plan
// once. The plan belongs to the cache: Destroy refuses it, and it is
// destroyed when the cache evicts it (the least recently used beyond
// SetCacheSize), when ClearCache clears the cache and when the device is
// released. Take it from Cached for each use rather than keeping it: a
// kept plan may have been evicted (its executions then fail with
// ErrInvalidHandle; those queued before the eviction run).
func Cached(dev *gpu.Device, kind Kind, dims []int, batch int, layout *Layout) (*Plan, error) {
	c, err := cacheOf(dev)
	if err != nil {
		return nil, err
	}
	key, ok := keyOf(kind, dims, batch, layout)
	if ok {
		c.mu.Lock()
		if el := c.byKey[key]; el != nil {
			c.lru.MoveToFront(el)
			p := el.Value.(*Plan)
			c.mu.Unlock()
			return p, nil
		}
		c.mu.Unlock()
	}
	p, err := NewPlanMany(dev, kind, dims, batch, layout)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.cached = true
	p.mu.Unlock()
	c.mu.Lock()
	if el := c.byKey[key]; el != nil {
		// Another goroutine made it meanwhile: keep one.
		c.lru.MoveToFront(el)
		q := el.Value.(*Plan)
		c.mu.Unlock()
		_ = p.release("fft plan cache")
		return q, nil
	}
	c.byKey[key] = c.lru.PushFront(p)
	evicted := c.trim()
	c.mu.Unlock()
	release(evicted)
	return p, nil
}

// trim removes the plans beyond the size, least recently used first, and
// returns them to release once the lock is dropped.
func (c *planCache) trim() []*Plan {
	var out []*Plan
	for c.lru.Len() > c.size {
		el := c.lru.Back()
		p := c.lru.Remove(el).(*Plan)
		k, _ := keyOf(p.kind, p.dims, p.batch, p.advanced)
		delete(c.byKey, k)
		out = append(out, p)
	}
	return out
}

func release(ps []*Plan) {
	for _, p := range ps {
		_ = p.release("fft plan cache")
	}
}

func (c *planCache) clear() {
	c.mu.Lock()
	size := c.size
	c.size = 0
	ps := c.trim()
	c.size = size
	c.mu.Unlock()
	release(ps)
}

// SetCacheSize sets how many plans dev's cache keeps (at least 1),
// destroying the least recently used beyond it.
func SetCacheSize(dev *gpu.Device, n int) error {
	c, err := cacheOf(dev)
	if err != nil {
		return err
	}
	if n < 1 {
		return gpu.Errorf(gpu.ErrInvalidValue, "fft plan cache", "size %d, want at least 1 (ClearCache empties the cache)", n)
	}
	c.mu.Lock()
	c.size = n
	ps := c.trim()
	c.mu.Unlock()
	release(ps)
	return nil
}

// CacheSize is the number of plans dev's cache keeps (size) and holds
// now (held).
func CacheSize(dev *gpu.Device) (size, held int, err error) {
	c, err := cacheOf(dev)
	if err != nil {
		return 0, 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, c.lru.Len(), nil
}

// ClearCache destroys every plan in dev's cache, once its queued
// executions are done (cupy's PlanCache.clear). The device's release
// (Shutdown, Reset) clears it too.
func ClearCache(dev *gpu.Device) error {
	c, err := cacheOf(dev)
	if err != nil {
		return err
	}
	c.clear()
	return nil
}
