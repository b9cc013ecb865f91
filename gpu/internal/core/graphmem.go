package core

import (
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
)

// GraphAlloc is the memory of a graph's alloc node (hipGraphAddMemAllocNode,
// or hipMallocAsync captured into a graph). Its block comes from a
// stream-ordered pool when the node is made and stays the graph's until
// the graph and every executable graph made from it are destroyed, so
// its address is the same at every launch. Free and FreeAsync of the
// memory, and free nodes of other graphs, end an allocation in the
// graph's order without returning the block.
type GraphAlloc struct {
	m    *Mem
	refs atomic.Int32 // the graph (or capture), and each executable graph
	// live: a launch of a graph that allocates without freeing left the
	// memory allocated, and no free has ended it yet.
	live atomic.Bool
}

// GraphAllocOf is the graph allocation m is memory of, or nil.
func GraphAllocOf(m *Mem) *GraphAlloc {
	if m == nil {
		return nil
	}
	return m.root().graph
}

// Mem is the allocation's memory.
func (ga *GraphAlloc) Mem() *Mem { return ga.m }

// Root is the buffer m is a view of, or m itself.
func (m *Mem) Root() *Mem { return m.root() }

// AllocGraph allocates n elements of elem from p into m as the memory of
// a graph's alloc node, held once for the caller (Release). It takes a
// block whose earlier free has completed, or a new one.
func (p *MemPool) AllocGraph(m *Mem, elem reflect.Type, n int) (*GraphAlloc, error) {
	const op = "graph add mem alloc node"
	es, err := checkCount(op, elem, n)
	if err != nil {
		return nil, err
	}
	gen := Gen(p.dev)
	if err := Valid(p.dev, gen); err != nil {
		return nil, errs.Wrap(op, err)
	}
	ga := &GraphAlloc{m: m}
	ga.refs.Store(1)
	if n == 0 {
		m.setEmpty(p.dev, gen, elem, es, false)
		m.graph = ga
		return ga, nil
	}
	c := sizeClass(uint64(n * es))
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "the pool's device was released")
	}
	b, ok := p.takeDone(c)
	if !ok {
		p.mu.Unlock()
		al, err := p.pool.Allocate(c)
		if err != nil {
			if p.trim(0) == 0 {
				return nil, errs.Wrap(op, err)
			}
			if al, err = p.pool.Allocate(c); err != nil {
				return nil, errs.Wrap(op, err)
			}
		}
		b = block{al: al}
		p.mu.Lock()
		p.stats.Reserved += c
		p.stats.ReservedHigh = max(p.stats.ReservedHigh, p.stats.Reserved)
		p.mark()
	}
	p.stats.Used += c
	p.stats.UsedHigh = max(p.stats.UsedHigh, p.stats.Used)
	p.mu.Unlock()
	if b.fence != nil {
		b.fence.Release() // done: nothing to order after
	}
	*m = Mem{alloc: b.al, elem: elem, esize: es, n: n, pool: p, home: p.dev, gen: gen, graph: ga, deps: &deps{}}
	m.dev.Store(p.dev)
	live.AddHeld(Scope(p.dev), m) // the graph's: no backstop releases it
	return ga, nil
}

// takeDone finds a block of class c whose free is complete, which any
// user may have without ordering; p is locked.
func (p *MemPool) takeDone(c uint64) (block, bool) {
	lp := p.list(c)
	l := *lp
	for i := len(l) - 1; i >= 0; i-- {
		b := l[i]
		if b.onHost || b.fence == nil || b.fence.Done() {
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

// Retain adds a holder: an executable graph made from the graph. The
// caller must hold a reference already.
func (ga *GraphAlloc) Retain() { ga.refs.Add(1) }

// Release drops a holder. The last one ends the memory: later uses fail
// as uses of freed memory do, and its block returns to the pool once the
// work queued on it completes (at once when none is pending).
func (ga *GraphAlloc) Release() {
	if ga.refs.Add(-1) != 0 {
		return
	}
	m := ga.m
	m.mu.Lock()
	m.freed.Store(true)
	var buf [1 + MaxReaders]*Fence
	deps := m.depsOf().take(buf[:0])
	m.mu.Unlock()
	live.RemoveWeak(m)
	var pending []*Fence
	for _, d := range deps {
		if d == nil {
			continue
		}
		if d.Done() {
			d.Release()
			continue
		}
		pending = append(pending, d)
	}
	switch {
	case m.empty || m.alloc == nil:
		for _, d := range pending {
			d.Release()
		}
	case len(pending) == 0:
		m.release(nil, 0, true)
	case len(pending) == 1:
		// The block carries the fence, as a stream-ordered free's does.
		m.release(pending[0], pending[0].queue, false)
	default:
		// Several streams' work still uses it (readers after the graph):
		// the block returns once they all complete. Waiting here could be
		// a wait of a host function for its own queue.
		go func() {
			for _, d := range pending {
				_ = d.Wait(0)
				d.Release()
			}
			m.release(nil, 0, true)
		}()
	}
}

// Launched records a launch of a graph that allocates the memory and
// does not free it: the memory stays allocated until a free. It fails
// while an earlier launch's allocation has not been freed, as CUDA
// refuses to launch such a graph again.
func (ga *GraphAlloc) Launched() bool { return ga.live.CompareAndSwap(false, true) }

// Unlaunch undoes Launched for a launch that failed to queue.
func (ga *GraphAlloc) Unlaunch() { ga.live.Store(false) }

// FreedBy records a launch of a graph whose free node ends the
// allocation another graph's launch made; false when none is live.
func (ga *GraphAlloc) FreedBy() bool { return ga.live.CompareAndSwap(true, false) }

// Unfree undoes FreedBy for a launch that failed to queue.
func (ga *GraphAlloc) Unfree() { ga.live.Store(true) }

// Live reports whether a launch left the memory allocated.
func (ga *GraphAlloc) Live() bool { return ga.live.Load() }

// free is Free and FreeAsync of graph memory outside a capture: the
// allocation a launch left ends; the block stays the graph's, and later
// launches order after the memory's users as for any buffer.
func (ga *GraphAlloc) free(op string) error {
	m := ga.m
	if err := m.Check(op); err != nil {
		return err
	}
	if !ga.live.CompareAndSwap(true, false) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s is graph memory that no launch left allocated (never launched, or already freed)", m)
	}
	return nil
}

// captureAlloc records an alloc node of p's memory into capture c on
// stream s: the memory exists from now on, as it does in CUDA, and is
// the captured graph's.
func (p *MemPool) captureAlloc(c *Capture, s *Stream, m *Mem, elem reflect.Type, n int) error {
	ga, err := p.AllocGraph(m, elem, n)
	if err != nil {
		return errs.Wrap("malloc async", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.add(s, CapturedNode{Packet: GraphPacket{Name: "mem alloc node"}, Alloc: ga}); err != nil {
		ga.Release()
		*m = Mem{}
		return err
	}
	return nil
}

// captureFree records a free node of m into capture c on stream s. Only
// graph memory can be freed by a graph: memory a graph does not own
// would be freed at the first replay and used by the next.
func captureFree(c *Capture, s *Stream, m *Mem) error {
	const op = "free async"
	c.mu.Lock()
	defer c.mu.Unlock()
	ga := GraphAllocOf(m)
	if ga == nil || m.parent != nil {
		err := gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "%s: a capture frees only memory allocated by a graph (NewAsync in a capture, or an alloc node)", m)
		c.fail(err)
		return err
	}
	for _, n := range c.nodes {
		if n.Free == ga {
			err := gpu.Errorf(gpu.ErrInvalidValue, op, "%s was already freed in the capture", m)
			c.fail(err)
			return err
		}
	}
	return c.add(s, CapturedNode{Packet: GraphPacket{Name: "mem free node"}, Free: ga, Uses: []MemUse{{M: m, Acc: Write}}})
}

// dropAllocs releases the memory of the capture's alloc nodes, which no
// graph will own: the capture failed; c.mu is held.
func (c *Capture) dropAllocs() {
	for i := range c.nodes {
		if ga := c.nodes[i].Alloc; ga != nil {
			c.nodes[i].Alloc = nil
			ga.Release()
		}
	}
}

// String names the memory, for errors.
func (ga *GraphAlloc) String() string { return fmt.Sprint(ga.m) }
