// Package runner marks the goroutines that run packets (a queue's
// processor, a worker of an agent's kernels) with the queue they serve, so
// that a call about to block can find out whether it waits for itself.
// rocr marks its processors and answers rocr.RunningQueue from here; the
// cpu driver marks its workers.
//
// Every function is safe from several goroutines. Marking costs a
// goroutine id lookup once per goroutine; switching the queue it serves,
// an atomic store.
package runner

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Runner is one marked goroutine serving queues of type Q.
type Runner[Q any] struct {
	id uint64
	q  atomic.Pointer[Q]
}

// runners maps a goroutine id to its *Runner[Q]. A map typed by its key,
// not a sync.Map: boxing an id above 255 into sync.Map's any key was an
// allocation in every Synchronize that waited past its grace.
var runners struct {
	mu sync.RWMutex
	m  map[uint64]any
}

// Mark marks the calling goroutine; Close unmarks it.
func Mark[Q any]() *Runner[Q] {
	e := &Runner[Q]{id: goid()}
	runners.mu.Lock()
	if runners.m == nil {
		runners.m = map[uint64]any{}
	}
	runners.m[e.id] = e
	runners.mu.Unlock()
	return e
}

// Serve records that the goroutine runs q's packets from now on (nil:
// none).
func (e *Runner[Q]) Serve(q *Q) { e.q.Store(q) }

// Close unmarks the goroutine.
func (e *Runner[Q]) Close() {
	runners.mu.Lock()
	if v, ok := runners.m[e.id]; ok && v == any(e) {
		delete(runners.m, e.id)
	}
	runners.mu.Unlock()
}

// Running returns the queue whose packet the calling goroutine is running,
// or nil. It costs microseconds: call it on a path that is about to block,
// not on every call.
func Running[Q any]() *Q {
	id := goid()
	runners.mu.RLock()
	v := runners.m[id]
	runners.mu.RUnlock()
	r, _ := v.(*Runner[Q])
	if r == nil {
		return nil
	}
	return r.q.Load()
}

// stackBufs hold goid's stack traces: runtime.Stack makes its buffer
// escape, and a blocking Synchronize asks for the id.
var stackBufs = sync.Pool{New: func() any { return new([64]byte) }}

// goid is the calling goroutine's id, from the first line of its stack
// trace ("goroutine 42 [running]:").
func goid() uint64 {
	buf := stackBufs.Get().(*[64]byte)
	defer stackBufs.Put(buf)
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
