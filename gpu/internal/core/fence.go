package core

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Fence is the completion signal of one submitted packet, shared by the
// stream that submitted it and the buffers the packet touched. Fences are
// pooled: they cost no allocation per launch. A fence is reference counted
// and returns to the pool when the last holder releases it.
type Fence struct {
	sig   *rocr.Signal
	queue uint64
	refs  atomic.Int32
	kind  *rocr.Agent // the agent whose runtime made sig; nil for rocr's soft signals
	// For dependency messages and checks: the operation, how it used the
	// buffer that recorded it, and its place in its queue.
	op  string
	acc Access
	seq uint64
	// The stream that submitted the packet (nil for the synchronous
	// engine's): a failure it already reported is not reported again.
	stream *queueState
	// shared: an IPC event's signal (NewSharedFence), destroyed with the
	// last holder instead of pooled.
	shared bool
}

// fences pools fences by the kind of signal they hold: rocr's soft signals
// (key nil) serve every agent but those whose packets carry their
// runtime's own signals (rocr's Agent.OwnSignals: rocm).
var fences struct {
	mu   sync.Mutex
	free map[*rocr.Agent][]*Fence
}

func signalKind(a *rocr.Agent) *rocr.Agent {
	if a.OwnSignals() {
		return a
	}
	return nil
}

func poolPut(fs ...*Fence) {
	fences.mu.Lock()
	if fences.free == nil {
		fences.free = map[*rocr.Agent][]*Fence{}
	}
	for _, f := range fs {
		f.stream = nil // a pooled fence keeps no stream's queue state alive
		fences.free[f.kind] = append(fences.free[f.kind], f)
	}
	fences.mu.Unlock()
}

// NewFence returns a fence armed for one packet of queue q (value 1), held
// once by the caller.
func NewFence(q *rocr.Queue) (*Fence, error) {
	f, err := takeFence(signalKind(q.Agent()))
	if err != nil {
		return nil, err
	}
	f.queue = q.ID()
	q.Expect(f.sig)
	return f, nil
}

// hostOps numbers the fences of synchronous operations (NewHostFence)
// above every queue id: to the dependency tracker each such operation
// is a queue of its own, so none is skipped as "of the same queue" by
// another.
var hostOps atomic.Uint64

const hostOpBit = 1 << 63

// NewHostFence returns a fence, armed and held once, that no packet
// completes: the host completes it (Cancel) when the operation it stands
// for ends. A synchronous copy or fill of a device's is recorded in its
// buffers' dependencies by one, so that stream work recorded after it
// waits for it as for any packet.
func NewHostFence(a *rocr.Agent) (*Fence, error) {
	f, err := takeFence(signalKind(a))
	if err != nil {
		return nil, err
	}
	f.queue = hostOpBit | hostOps.Add(1)
	return f, nil
}

// takeFence is a fence of signal kind kind from the pool or new, armed
// (value 1), held once, of no queue yet.
func takeFence(kind *rocr.Agent) (*Fence, error) {
	fences.mu.Lock()
	var f *Fence
	if l := fences.free[kind]; len(l) > 0 {
		f = l[len(l)-1]
		fences.free[kind] = l[:len(l)-1]
	}
	fences.mu.Unlock()
	if f == nil || f.sig.Destroyed() {
		var s *rocr.Signal
		var err error
		if kind != nil {
			s, err = rocr.NewSignalFor(kind, 1)
		} else {
			s, err = rocr.NewSignal(1)
		}
		if err != nil {
			return nil, errs.Wrap("fence", err)
		}
		f = &Fence{sig: s, kind: kind}
	} else {
		f.sig.Store(1, hsa.Relaxed)
	}
	f.stream = nil
	f.refs.Store(1)
	return f, nil
}

// Retain adds a holder.
func (f *Fence) Retain() { f.refs.Add(1) }

// Release drops a holder; the last one returns the fence to the pool.
func (f *Fence) Release() {
	if f.refs.Add(-1) == 0 {
		f.recycle()
	}
}

// recycle returns a fence nobody holds to the pool, or destroys a shared
// one's signal.
func (f *Fence) recycle() {
	if f.shared {
		_ = f.sig.Destroy()
		return
	}
	poolPut(f)
}

// Signal is the fence's completion signal.
func (f *Fence) Signal() *rocr.Signal { return f.sig }

// Queue is the id of the queue whose packet completes the fence.
func (f *Fence) Queue() uint64 { return f.queue }

// Done reports whether the packet completed. A signal its agent completes
// lazily is settled first, without asking the agent for anything.
func (f *Fence) Done() bool {
	f.sig.Observe(false)
	return f.sig.Load(hsa.Acquire) <= 0
}

// Query is Done for a caller who wants to know soon (hipStreamQuery,
// hipEventQuery): an agent that completes signals lazily is asked to
// complete this one.
func (f *Fence) Query() bool {
	f.sig.Observe(true)
	return f.sig.Load(hsa.Acquire) <= 0
}

// Err is the packet's failure, if it failed.
func (f *Fence) Err() error { return f.sig.Err() }

// Wait blocks until the packet completes (timeout <= 0: forever) and
// returns its failure.
func (f *Fence) Wait(timeout time.Duration) error {
	return f.WaitHint(timeout, hsa.WaitActive)
}

// WaitHint is Wait with a wait hint: spin first (WaitActive) or yield the
// thread soon (WaitBlocked).
func (f *Fence) WaitHint(timeout time.Duration, hint hsa.WaitHint) error {
	if _, ok := f.sig.WaitTimed(hsa.CondLT, 1, timeout, hint); !ok {
		return gpu.Errorf(gpu.ErrNotReady, "wait", "timed out after %v", timeout)
	}
	return f.sig.Err()
}

// Cancel completes a fence whose packet was never published, so that
// the buffers and streams that already hold it do not wait forever. It
// must not be called on a fence a queued packet completes.
func (f *Fence) Cancel() { f.sig.Store(0, hsa.Release) }

// fenceBatch is how many fences a FenceCache moves to or from the shared
// pool at once: one lock of the pool per batch, not per fence, where one
// stream's packets release fences that another stream made (a dependency
// across streams), which leaves one cache always full and the other
// always empty.
const fenceBatch = 16

// FenceCache is a small free list of fences for one owner whose calls are
// serialized (a stream, under its lock): a launch takes the fence that the
// previous one gave back without touching the shared pool. It keeps fences
// of one signal kind, the kind of the first queue it serves; others go
// back to the pool.
type FenceCache struct {
	n     int
	known bool        // kind is set
	kind  *rocr.Agent // the signal kind of the cached fences
	free  [2 * fenceBatch]*Fence
}

// New is NewFence, from the cache when it holds one. An empty cache takes
// a batch from the shared pool first.
func (c *FenceCache) New(q *rocr.Queue) (*Fence, error) {
	if !c.known {
		c.kind, c.known = signalKind(q.Agent()), true
	}
	if c.n == 0 {
		c.refill()
	}
	for c.n > 0 {
		c.n--
		f := c.free[c.n]
		c.free[c.n] = nil
		if f.sig.Destroyed() {
			continue // its runtime shut down: the pool makes a new one
		}
		f.queue = q.ID() // armed by Release or refill
		f.refs.Store(1)
		q.Expect(f.sig)
		return f, nil
	}
	return NewFence(q)
}

// refill moves up to fenceBatch fences of the cache's kind from the pool
// into the empty cache, arming them outside the pool's lock.
func (c *FenceCache) refill() {
	fences.mu.Lock()
	l := fences.free[c.kind]
	k := min(len(l), fenceBatch)
	if k > 0 {
		copy(c.free[:k], l[len(l)-k:])
		clear(l[len(l)-k:])
		fences.free[c.kind] = l[:len(l)-k]
	}
	fences.mu.Unlock()
	// The pool's last fence (the most recently released) is taken first.
	c.n = k
	for _, f := range c.free[:k] {
		if !f.sig.Destroyed() {
			f.sig.Store(1, hsa.Relaxed)
		}
	}
}

// Release is f.Release, keeping f in the cache if it was the last holder.
// A cached fence is armed here, off the path from New to the packet's
// publication. A full cache gives its oldest batch to the pool first.
func (c *FenceCache) Release(f *Fence) {
	if f.refs.Add(-1) != 0 {
		return
	}
	if f.shared || !c.known || f.kind != c.kind {
		f.recycle()
		return
	}
	if c.n == len(c.free) {
		poolPut(c.free[:fenceBatch]...)
		copy(c.free[:], c.free[fenceBatch:])
		clear(c.free[len(c.free)-fenceBatch:])
		c.n -= fenceBatch
	}
	f.sig.Store(1, hsa.Relaxed)
	c.free[c.n] = f
	c.n++
}

// Flush returns the cached fences to the shared pool.
func (c *FenceCache) Flush() {
	poolPut(c.free[:c.n]...)
	clear(c.free[:c.n])
	c.n = 0
}
