package core

import (
	"fmt"
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// PoolReuse are a memory pool's reuse policies (hipMemPoolReuse*
// attributes). Memory freed on a stream is always reused by later
// allocations on that stream; these say when another stream may have it.
type PoolReuse uint8

const (
	// ReuseFollowEventDependencies: a stream that waited (WaitEvent) for an
	// event recorded after the free may reuse the memory.
	ReuseFollowEventDependencies PoolReuse = 1 << iota
	// ReuseAllowOpportunistic: any stream may reuse memory whose free has
	// completed.
	ReuseAllowOpportunistic
	// ReuseAllowInternalDependencies: accepted for HIP's sake; the pool
	// never inserts waits of its own, so it changes nothing.
	ReuseAllowInternalDependencies
)

// PoolStats are a pool's usage attributes (hipMemPoolAttrUsedMemCurrent
// and High, hipMemPoolAttrReservedMemCurrent and High), in bytes.
type PoolStats struct {
	Used, UsedHigh         uint64
	Reserved, ReservedHigh uint64
}

// MemPool is a device's pool of stream-ordered memory (hipMemPool_t): it
// keeps coarse-grained blocks freed on streams and hands them out again in
// stream order. Blocks come from and return to the device's coarse-grained
// rocr pool, so they are owned by the device like any Buffer.
type MemPool struct {
	dev  *gpu.Device
	pool *rocr.Pool

	mu        sync.Mutex
	threshold uint64
	reuse     PoolReuse
	small     [smallClasses][]block // classes up to 2 MiB, by log2(class)-8
	big       map[uint64][]block    // larger classes
	stats     PoolStats
	cached    uint64 // bytes in the free lists
	over      bool   // counted in set.pending: see mark
	set       *devPools
	closed    bool
	dead      atomic.Bool // closed, readable without mu
}

// block is one cached allocation, the fence of the free that returned it
// (nil once known complete) and the queue it was freed on, or onHost for
// a synchronous free.
type block struct {
	al     *rocr.Allocation
	fence  *Fence
	queue  uint64
	onHost bool
}

type memPoolKey struct{}

// DefaultMemPool is dev's default pool (hipDeviceGetDefaultMemPool).
func DefaultMemPool(dev *gpu.Device) (*MemPool, error) {
	if p := lastDefault.Load(); p != nil && p.dev == dev && !p.dead.Load() {
		return p, nil // the common case: one device allocating
	}
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("device get default mem pool", err)
	}
	var p *MemPool
	if v, ok := LookupValue(dev, memPoolKey{}); ok {
		p = v.(*MemPool)
	} else {
		var err error
		if p, err = NewMemPool(dev, memPoolKey{}); err != nil {
			return nil, err
		}
	}
	lastDefault.Store(p)
	return p, nil
}

// lastDefault is the default pool last asked for.
var lastDefault atomic.Pointer[MemPool]

// NewMemPool makes a pool on dev, released with the device (key: a value
// of the caller's that names it; a new pointer for a pool of its own).
func NewMemPool(dev *gpu.Device, key any) (*MemPool, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("mem pool create", err)
	}
	v, err := DeviceValue(dev, key, func() (any, func() error, error) {
		rp, err := hostOrDevicePool(dev, hsa.FlagCoarseGrained, false)
		if err != nil {
			return nil, nil, err
		}
		p := &MemPool{dev: dev, pool: rp, reuse: ReuseFollowEventDependencies | ReuseAllowOpportunistic | ReuseAllowInternalDependencies, big: map[uint64][]block{}}
		p.set = poolsOf(dev)
		Register(dev, p)
		p.set.add(p)
		return p, p.close, nil
	})
	if err != nil {
		return nil, errs.Wrap("mem pool create", err)
	}
	return v.(*MemPool), nil
}

// Device is the pool's device.
func (p *MemPool) Device() *gpu.Device { return p.dev }

// close drops the cache when the device is released (the runtime frees the
// allocations itself).
func (p *MemPool) close() error {
	Unregister(p.dev, p)
	p.set.remove(p)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.dead.Store(true)
	p.cached = 0
	p.mark()
	p.each(func(_ uint64, l *[]block) {
		for _, b := range *l {
			if b.fence != nil {
				b.fence.Release()
			}
		}
		*l = nil
	})
	return nil
}

// sizeClass rounds a request up so that freed blocks match later requests:
// powers of two up to 2 MiB, multiples of 2 MiB above.
func sizeClass(n uint64) uint64 {
	const big = 2 << 20
	if n <= 256 {
		return 256
	}
	if n <= big {
		return 1 << bits.Len64(n-1)
	}
	return (n + big - 1) / big * big
}

const smallClasses = 14 // 256 B .. 2 MiB

// list is the free list of class c; p is locked.
func (p *MemPool) list(c uint64) *[]block {
	if c <= 2<<20 {
		return &p.small[bits.Len64(c-1)-8]
	}
	l, ok := p.big[c]
	if !ok {
		p.big[c] = l
	}
	return &l // rewritten through put for big classes
}

// put stores list l of class c back; p is locked.
func (p *MemPool) put(c uint64, l []block) {
	if c > 2<<20 {
		if len(l) == 0 {
			delete(p.big, c)
		} else {
			p.big[c] = l
		}
	}
}

// each calls f with every class's free list; p is locked.
func (p *MemPool) each(f func(c uint64, l *[]block)) {
	for i := range p.small {
		f(256<<i, &p.small[i])
	}
	for c := range p.big {
		l := p.big[c]
		f(c, &l)
		p.put(c, l)
	}
}

// take finds a block of class c that s may use now: one freed on s, one
// whose free completed (AllowOpportunistic), or one whose free s waited
// for (FollowEventDependencies); s is locked.
func (p *MemPool) take(c uint64, s *Stream) (block, bool) {
	lp := p.list(c)
	l := *lp
	q := s.q.ID()
	for i := len(l) - 1; i >= 0; i-- {
		b := l[i]
		ok := b.onHost || b.queue == q // freed on the host, or on s
		if !ok && p.reuse&ReuseAllowOpportunistic != 0 && (b.fence == nil || b.fence.Done()) {
			ok = true
		}
		if !ok && p.reuse&ReuseFollowEventDependencies != 0 && b.fence != nil && s.ordered(b.fence) {
			ok = true
		}
		if ok {
			l[i] = l[len(l)-1]
			l[len(l)-1] = block{}
			*lp = l[:len(l)-1]
			p.put(c, *lp)
			p.cached -= c
			p.mark()
			return b, true
		}
	}
	return block{}, false
}

// AllocAsync allocates n elements of elem from the pool into m, in s's
// order (hipMallocFromPoolAsync): work queued on s after it may use m.
// Memory reused from a free on another stream keeps that free as m's last
// writer, so other streams that use m wait for it.
func (p *MemPool) AllocAsync(m *Mem, s *Stream, elem reflect.Type, n int) error {
	const op = "malloc async"
	es, err := checkCount(op, elem, n)
	if err != nil {
		return err
	}
	if s.Device() != p.dev {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "stream of %s, pool of %s", s.Device(), p.dev)
	}
	gen := Gen(p.dev) // before the pool's check: a reset after it closes the pool first
	if err := Valid(p.dev, gen); err != nil {
		return errs.Wrap(op, err)
	}
	if err := s.Lock(op); err != nil {
		return err
	}
	if c := s.captureOf(); c != nil && n > 0 {
		s.mu.Unlock()
		return p.captureAlloc(c, s, m, elem, n)
	}
	if n == 0 {
		s.mu.Unlock()
		m.setEmpty(p.dev, gen, elem, es, false)
		return nil
	}
	c := sizeClass(uint64(n * es))
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		s.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidValue, op, "the pool's device was released")
	}
	b, ok := p.take(c, s)
	p.mu.Unlock()
	s.mu.Unlock()
	if !ok {
		al, err := p.pool.Allocate(c)
		if err != nil {
			// Release what the pool holds and completed, then try once more.
			if p.trim(0) == 0 {
				return errs.Wrap(op, err)
			}
			if al, err = p.pool.Allocate(c); err != nil {
				return errs.Wrap(op, err)
			}
		}
		b = block{al: al}
		p.mu.Lock()
		p.stats.Reserved += c
		p.stats.ReservedHigh = max(p.stats.ReservedHigh, p.stats.Reserved)
		p.mark()
		p.mu.Unlock()
	}
	p.mu.Lock()
	p.stats.Used += c
	p.stats.UsedHigh = max(p.stats.UsedHigh, p.stats.Used)
	p.mu.Unlock()
	*m = Mem{alloc: b.al, elem: elem, esize: es, n: n, pool: p, home: p.dev, gen: gen, deps: &deps{}}
	m.deps.writer = b.fence // the reference passes to m
	m.dev.Store(p.dev)
	live.AddWeak(Scope(p.dev), m)
	m.armPoolBackstop(c)
	return nil
}

// FreeAsync frees m in s's order (hipFreeAsync): the memory returns to its
// pool after the work that uses it, on any stream, and s's later
// allocations may reuse it at once. A second free is an error.
//
// A stream that cannot take work (nil, destroyed, failed, or of a
// runtime shut down) frees nothing: the error says so, and the buffer
// stays the caller's to use or Free. When the stream took the free but
// could not queue its barrier, the memory is freed on the host after
// its users, and the error says it was freed.
func FreeAsync(m *Mem, s *Stream) error {
	const op = "free async"
	if err := m.Check(op); err != nil {
		return err
	}
	if m.pool != nil && m.graph == nil && m.pool.dev != nil && s.dev != nil && Root(m.pool.dev) != Root(s.dev) {
		// The free would return the memory to device m's pool in the
		// order of another device's queue, which that pool's later
		// allocations on their own streams do not follow.
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s belongs to device %d's pool, and the stream is device %d's: free it on a stream of device %d (or with Free)",
			m, m.pool.dev.Ordinal(), s.dev.Ordinal(), m.pool.dev.Ordinal())
	}
	if err := s.Lock(op); err != nil {
		return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Msg: fmt.Sprintf("%s not freed", m), Err: err}
	}
	if c := s.captureOf(); c != nil && !(m.empty && m.graph == nil) {
		s.mu.Unlock()
		return captureFree(c, s, m)
	}
	if m.graph != nil {
		s.mu.Unlock()
		return m.graph.free(op)
	}
	if m.pool == nil {
		// Memory of no pool: freed after its users, now. Free waits for
		// them, s's among them, so not under s's lock.
		s.mu.Unlock()
		return m.Free()
	}
	// s.mu before m.mu, as a launch takes them.
	m.mu.Lock()
	if !m.freed.CompareAndSwap(false, true) {
		m.mu.Unlock()
		s.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s was already freed", m)
	}
	m.backstop.Stop()
	var buf [1 + MaxReaders]*Fence
	deps := m.depsOf().take(buf[:0])
	m.mu.Unlock()
	live.RemoveWeak(m)
	f, err := s.freeFence(op, deps)
	s.mu.Unlock()
	for _, d := range deps {
		if d != nil {
			if err != nil {
				_ = d.Wait(0) // no barrier to order the free: wait here
			}
			d.Release()
		}
	}
	if err != nil {
		m.release(nil, 0, true)
		return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Msg: fmt.Sprintf("%s freed on the host after its users", m), Err: err}
	}
	m.release(f, s.q.ID(), false)
	return nil
}

// freeFence returns a fence, retained for the caller (nil: none needed),
// that completes after deps (the caller keeps its references) and the
// stream's work so far: the stream's tail, or a barrier packet when deps
// include other queues' work still pending. s is locked.
func (s *Stream) freeFence(op string, deps []*Fence) (*Fence, error) {
	q := s.q.ID()
	cross := false
	for _, d := range deps {
		if d != nil && d.queue != q && !d.Done() {
			cross = true
			break
		}
	}
	if !cross {
		// Ordered after the stream's last packet already: its fence is the
		// free's, and no packet is needed (nil: nothing is pending).
		s.reap(false)
		if s.tail == nil || s.tail.Done() {
			return nil, nil
		}
		s.tail.Retain()
		return s.tail, nil
	}
	f, err := s.newFence(op)
	if err != nil {
		return nil, err
	}
	f.Signal().SkipTimestamps()
	e := s.Push()
	e.fence = f
	var body aql.BarrierAnd
	k := 0
	for _, d := range deps {
		if d == nil {
			continue
		}
		if d.queue == q || d.Done() || k == len(body.DepSignal) {
			if d.queue != q && !d.Done() {
				_ = d.Wait(0) // beyond a barrier's slots: rare, wait here
			}
			continue
		}
		d.Retain() // the packet's own reference
		body.DepSignal[k] = d.Signal().Handle()
		e.deps[k] = d
		k++
	}
	e.ndeps = k
	body.CompletionSignal = f.Signal().Handle()
	if err := s.Submit(unsafe.Pointer(&body), BarrierHeader, e); err != nil {
		return nil, err
	}
	f.Retain()
	return f, nil
}

// release returns m's block to its pool, or to the device's rocr pool
// when the memory was transferred to another device (a block must be the
// pool device's to be handed out again).
func (m *Mem) release(f *Fence, queue uint64, onHost bool) {
	m.pool.giveBack(m.alloc, sizeClass(uint64(m.n*m.esize)), f, queue, onHost)
}

// giveBack returns al, a block of class c, to the pool, with the fence of
// its free; to the device when the pool is closed or al is another
// device's now.
func (p *MemPool) giveBack(al *rocr.Allocation, c uint64, f *Fence, queue uint64, onHost bool) {
	p.mu.Lock()
	p.stats.Used -= c
	if p.closed || al.Freed() || al.Owner() != p.dev.Agent() {
		if !p.closed && !al.Freed() {
			p.stats.Reserved -= c
			p.mark()
		}
		p.mu.Unlock()
		if f != nil {
			_ = f.Wait(0)
			f.Release()
		}
		if !al.Freed() {
			_ = al.Free()
		}
		return
	}
	lp := p.list(c)
	*lp = append(*lp, block{al: al, fence: f, queue: queue, onHost: onHost})
	p.put(c, *lp)
	p.cached += c
	p.mark()
	p.mu.Unlock()
}

// Reuse is the pool's reuse policy.
func (p *MemPool) Reuse() PoolReuse { return locked(&p.mu, &p.reuse) }

// SetReuse sets the reuse policy.
func (p *MemPool) SetReuse(r PoolReuse) { setLocked(&p.mu, &p.reuse, r) }

// Stats returns the pool's usage.
func (p *MemPool) Stats() PoolStats { return locked(&p.mu, &p.stats) }

// ResetHighWater sets the high-water marks to the current values.
func (p *MemPool) ResetHighWater() {
	p.mu.Lock()
	p.stats.UsedHigh, p.stats.ReservedHigh = p.stats.Used, p.stats.Reserved
	p.mu.Unlock()
}

// locked reads *v under mu, for the pool's settings.
func locked[T any](mu *sync.Mutex, v *T) T {
	mu.Lock()
	defer mu.Unlock()
	return *v
}

// setLocked sets *v under mu.
func setLocked[T any](mu *sync.Mutex, v *T, x T) {
	mu.Lock()
	*v = x
	mu.Unlock()
}
