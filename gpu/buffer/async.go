package buffer

import (
	"reflect"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Stream is a *stream.Stream, named by what it does because package
// stream imports this one. Stream-ordered allocation takes one.
type Stream interface {
	Device() *gpu.Device
	Synchronize() error
}

// PoolReuse is a memory pool's reuse policy (hipMemPoolReuse* attributes),
// a set of the Reuse bits.
type PoolReuse uint8

// Reuse policies. Memory freed on a stream is always reused by that
// stream's later allocations; these say when another stream may reuse it.
const (
	// ReuseFollowEventDependencies: a stream that waited for an event
	// recorded after the free.
	ReuseFollowEventDependencies PoolReuse = 1 << iota
	// ReuseAllowOpportunistic: any stream, once the free has completed.
	ReuseAllowOpportunistic
	// ReuseAllowInternalDependencies: accepted for HIP's sake; the pool
	// never inserts waits of its own.
	ReuseAllowInternalDependencies
)

// The policies are the core pool's, bit for bit: a difference does not
// compile (a constant index out of range).
var _ = [1]struct{}{}[ReuseFollowEventDependencies^PoolReuse(core.ReuseFollowEventDependencies)|
	ReuseAllowOpportunistic^PoolReuse(core.ReuseAllowOpportunistic)|
	ReuseAllowInternalDependencies^PoolReuse(core.ReuseAllowInternalDependencies)]

// PoolStats are a pool's used and reserved bytes and their high-water
// marks (hipMemPoolAttrUsedMem*, hipMemPoolAttrReservedMem*).
type PoolStats struct {
	Used, UsedHigh         uint64
	Reserved, ReservedHigh uint64
}

// MemPool is a device's pool of stream-ordered memory (hipMemPool_t).
// Its blocks are the device's coarse-grained memory and follow the same
// ownership rules as any Buffer. Every method is safe for concurrent use.
// A nil or zero MemPool is no pool: its accessors return zero values, its
// setters do nothing, and allocating from it is an error.
type MemPool struct{ p *core.MemPool }

// DefaultMemPool is dev's default pool, the one NewAsync uses
// (hipDeviceGetDefaultMemPool). Its release threshold starts at 0: unused
// memory returns to the device at every synchronization (a stream's, an
// event's or the device's), as in HIP and CUDA.
func DefaultMemPool(dev *gpu.Device) (*MemPool, error) {
	p, err := core.DefaultMemPool(dev)
	if err != nil {
		return nil, err
	}
	return &MemPool{p}, nil
}

// NewMemPool makes a pool of dev's memory (hipMemPoolCreate); it lives
// until gpu.Shutdown.
func NewMemPool(dev *gpu.Device) (*MemPool, error) {
	p, err := core.NewMemPool(dev, new(byte))
	if err != nil {
		return nil, err
	}
	return &MemPool{p}, nil
}

// pool is the core pool, nil for a nil or zero MemPool.
func (p *MemPool) pool() *core.MemPool {
	if p == nil {
		return nil
	}
	return p.p
}

// Device is the pool's device.
func (p *MemPool) Device() *gpu.Device {
	if p.pool() == nil {
		return nil
	}
	return p.p.Device()
}

// ReleaseThreshold is how many reserved bytes the pool keeps when a
// stream, an event or the device synchronizes
// (hipMemPoolAttrReleaseThreshold).
func (p *MemPool) ReleaseThreshold() uint64 {
	if p.pool() == nil {
		return 0
	}
	return p.p.ReleaseThreshold()
}

// SetReleaseThreshold sets ReleaseThreshold.
func (p *MemPool) SetReleaseThreshold(n uint64) {
	if p.pool() != nil {
		p.p.SetReleaseThreshold(n)
	}
}

// Reuse is the pool's reuse policy; all of them by default, as in HIP.
func (p *MemPool) Reuse() PoolReuse {
	if p.pool() == nil {
		return 0
	}
	return PoolReuse(p.p.Reuse())
}

// SetReuse sets the reuse policy.
func (p *MemPool) SetReuse(r PoolReuse) {
	if p.pool() != nil {
		p.p.SetReuse(core.PoolReuse(r))
	}
}

// Stats returns the pool's usage.
func (p *MemPool) Stats() PoolStats {
	if p.pool() == nil {
		return PoolStats{}
	}
	return PoolStats(p.p.Stats())
}

// ResetHighWater sets the high-water marks to the current usage.
func (p *MemPool) ResetHighWater() {
	if p.pool() != nil {
		p.p.ResetHighWater()
	}
}

// Trim returns unused memory to the device until at most keep bytes stay
// reserved (hipMemPoolTrimTo). Memory whose free has not completed stays.
func (p *MemPool) Trim(keep uint64) {
	if p.pool() != nil {
		p.p.Trim(keep)
	}
}

// NewAsync allocates n elements of T from the default pool of s's device,
// in s's order (hipMallocAsync): work queued on s afterwards may use it at
// once, other streams after an ordering with s (an event) or through the
// buffer's own dependencies, which hipgo tracks as for any buffer. On a
// capturing stream it is captured as a graph's alloc node: the buffer is
// the graph's memory (see gpu/graph).
func NewAsync[T any](s Stream, n int) (*Buffer[T], error) {
	const op = "malloc async"
	cs, err := coreStream(op, s)
	if err != nil {
		return nil, err
	}
	p, err := core.DefaultMemPool(cs.Device())
	if err != nil {
		return nil, err
	}
	return newFromPool[T](p, cs, n)
}

// NewFromPoolAsync is NewAsync from pool p (hipMallocFromPoolAsync); s
// must be a stream of p's device.
func NewFromPoolAsync[T any](p *MemPool, s Stream, n int) (*Buffer[T], error) {
	const op = "malloc from pool async"
	if p.pool() == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil pool")
	}
	cs, err := coreStream(op, s)
	if err != nil {
		return nil, err
	}
	return newFromPool[T](p.p, cs, n)
}

func newFromPool[T any](p *core.MemPool, s *core.Stream, n int) (*Buffer[T], error) {
	b := &Buffer[T]{}
	if err := p.AllocAsync(&b.m, s, reflect.TypeFor[T](), n); err != nil {
		return nil, err
	}
	return b, nil
}

// FreeAsync frees the buffer in s's order (hipFreeAsync): its memory goes
// back to its pool after the work queued before on s and after every other
// use of the buffer, and s's later allocations may reuse it at once. A
// buffer from New is freed now, after its users, as Free does.
//
// A stream that cannot take work (destroyed, or failed with a sticky
// error) frees nothing: the error says the buffer was not freed, and it
// stays usable and must still be freed. In the rare case that the stream
// took the free but could not queue it, the buffer is freed on the host
// after its users and the error says it was freed.
//
// Graph memory (an alloc node's buffer, see gpu/graph) stays its graph's:
// FreeAsync, like Free, ends the allocation that a launch of a graph
// that does not free it left, in the buffer's order. On a capturing
// stream, FreeAsync of graph memory is captured as a free node; of other
// memory it is refused.
func (b *Buffer[T]) FreeAsync(s Stream) error {
	const op = "free async"
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	cs, err := coreStream(op, s)
	if err != nil {
		return err
	}
	return core.FreeAsync(&b.m, cs)
}

func coreStream(op string, s Stream) (*core.Stream, error) {
	var cs *core.Stream
	if s != nil {
		cs = core.StreamOf(s)
	}
	if cs == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream or not a *stream.Stream")
	}
	return cs, nil
}
