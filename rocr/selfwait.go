package rocr

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/spi"
)

// ErrSelfWait is a call that would wait for the packet its caller is
// running (a host callback or kernel that synchronizes, destroys or fills
// its own queue, or shuts the runtime down): it would never return.
var ErrSelfWait = errSelfWait{}

type errSelfWait struct{}

func (errSelfWait) Error() string { return "would wait for the packet it runs in" }

// Runner marks a goroutine that runs packets (a queue's processor, a
// worker of an agent's kernels), so that a call about to block can find
// out whether it waits for itself. Marking costs a goroutine id lookup
// once per goroutine; switching the queue it serves, an atomic store.
type Runner struct {
	id uint64
	q  atomic.Pointer[Queue]
}

var runners sync.Map // goroutine id -> *Runner

// MarkRunner marks the calling goroutine; Close unmarks it.
func MarkRunner() *Runner {
	e := &Runner{id: goid()}
	runners.Store(e.id, e)
	return e
}

// Serve records that the goroutine runs q's packets from now on (nil:
// none). q is a queue rocr handed the driver.
func (e *Runner) Serve(q spi.Queue) {
	rq, _ := q.(*Queue)
	e.q.Store(rq)
}

// Close unmarks the goroutine.
func (e *Runner) Close() { runners.CompareAndDelete(e.id, e) }

// RunningQueue returns the queue whose packet the calling goroutine is
// running, or nil. It costs microseconds: call it on a path that is about
// to block, not on every call.
func RunningQueue() *Queue {
	v, ok := runners.Load(goid())
	if !ok {
		return nil
	}
	return v.(*Runner).q.Load()
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
