package prim

import (
	"errors"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Temporary storage. A call takes its temporaries from its stream's
// cache of idle ones (a buffer of the same type and length) and gives
// them back when it has queued its last launch, as a CUB user keeps one
// temporary storage for the calls of a stream: the stream runs one call's
// work after the other's, so the next call on it may reuse them at once.
// So a repeated call allocates nothing on the host once its stream has
// the temporaries it needs. A miss allocates from the device's default
// pool in the stream's order (buffer.NewAsync); a cache full of idle
// buffers frees its oldest (FreeAsync). On a capturing stream the
// temporaries are the graph's alloc and free nodes instead, as before.
// A stream's idle temporaries are freed when it is destroyed, or once it
// is unreachable.

// maxIdle is how many idle temporaries a stream keeps.
const maxIdle = 16

// scratchCache is a stream's idle temporaries: *buffer.Buffer[T] of the
// package's types, the most recently given back last.
type scratchCache struct {
	mu   sync.Mutex
	idle []any
	dead bool // released: what comes back is freed
}

// caches maps a stream (weakly: the cache does not keep it alive) to its
// scratchCache.
var caches sync.Map // weak.Pointer[stream.Stream] -> *scratchCache

type asyncFreer interface {
	FreeAsync(buffer.Stream) error
	Free() error
}

// freeNow frees b in s's order, or at once where s cannot take the free
// (destroyed, its runtime shut down): the stream has no work left then.
func freeNow(s *stream.Stream, b asyncFreer) error {
	err := b.FreeAsync(s)
	if err != nil && b.Free() == nil {
		return nil
	}
	return err
}

// cacheOf is s's cache of temporaries; nil while s is capturing.
func cacheOf(s *stream.Stream) *scratchCache {
	cs := core.StreamOf(s)
	if cs == nil || cs.IsCapturing() || cs.Destroyed() {
		return nil
	}
	k := weak.Make(s)
	if c, ok := caches.Load(k); ok {
		return c.(*scratchCache)
	}
	c, loaded := caches.LoadOrStore(k, &scratchCache{idle: make([]any, 0, maxIdle)})
	if !loaded {
		if !cs.OnDestroy(func() { release(k) }) {
			release(k)
			return nil
		}
		runtime.AddCleanup(s, release, k)
	}
	return c.(*scratchCache)
}

// release frees a destroyed or unreachable stream's idle temporaries.
// The stream ran its work to the end (Destroy waits for it) or will not
// run more.
func release(k weak.Pointer[stream.Stream]) {
	c, ok := caches.LoadAndDelete(k)
	if !ok {
		return
	}
	sc := c.(*scratchCache)
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.dead = true
	for _, b := range sc.idle {
		_ = b.(asyncFreer).Free()
	}
	sc.idle = nil
}

// scratch is n elements (at least one) of temporary storage for a call on
// s: an idle one of s's, else a new one from the stream's pool in its
// order. free gives it back.
func scratch[T any](s *stream.Stream, n int) (*buffer.Buffer[T], error) {
	n = max(n, 1)
	if c := cacheOf(s); c != nil {
		c.mu.Lock()
		for i := len(c.idle) - 1; i >= 0; i-- {
			if b, ok := c.idle[i].(*buffer.Buffer[T]); ok && b.Len() == n {
				c.idle = slices.Delete(c.idle, i, i+1)
				c.mu.Unlock()
				return b, nil
			}
		}
		c.mu.Unlock()
	}
	return buffer.NewAsync[T](s, n)
}

// free gives b back to s's cache once the call has queued its work on s
// (or frees it in s's order while s captures, or the call failed).
func free[T any](s *stream.Stream, b *buffer.Buffer[T], err *error) {
	if b == nil {
		return
	}
	c := cacheOf(s)
	if c == nil || *err != nil {
		*err = errors.Join(*err, freeNow(s, b))
		return
	}
	var evict any
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		*err = errors.Join(*err, freeNow(s, b))
		return
	}
	if len(c.idle) == maxIdle {
		evict = c.idle[0]
		c.idle = slices.Delete(c.idle, 0, 1)
	}
	c.idle = append(c.idle, b)
	c.mu.Unlock()
	if evict != nil {
		*err = errors.Join(*err, freeNow(s, evict.(asyncFreer)))
	}
}
