package rocr

import (
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/spi"
)

// exited fails packet id, whose kernel or host callback ended the
// processor's goroutine with runtime.Goexit, and moves the read index past
// it, where a new processor goroutine carries on: a queue must not hang
// because Go let code on it stop its goroutine.
func (q *Queue) exited(id uint64) {
	slot := q.Slot(id)
	h := aql.Header(atomic.LoadUint32((*uint32)(slot)))
	what := "a host callback"
	if h.Type() == aql.TypeKernelDispatch {
		what = "a kernel"
		if n, ok := q.exec.(spi.KernelNamer); ok {
			what = "kernel " + n.KernelName((*aql.KernelDispatch)(slot).KernelObject)
		}
	}
	err := hsa.Errorf(hsa.StatusErrorException, "queue", "packet %d of queue %d: %s called runtime.Goexit", id, q.id, what)
	q.complete(id, slot, h, clock.Now(), err)
	atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
	atomic.StoreUint64(q.readIdx, id+1)
}
