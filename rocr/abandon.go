package rocr

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Go cannot stop a goroutine from outside: a Go kernel that never returns
// holds its queue's processor for ever. rocr gives up on such a kernel as
// a GPU watchdog gives up on a hung wave: Abandon fails its packet, and a
// new processor goroutine carries on with the queue, while the old one is
// left in the kernel. The executor (Abandoner) keeps what the kernel may
// still touch until it returns.

// defaultKernelGrace is how long Destroy (and so ShutDown) waits for a
// kernel that does not return, after cancelling it, before abandoning it;
// HIPGO_KERNEL_GRACE sets another.
const defaultKernelGrace = 3 * time.Second

// kernelGrace reads HIPGO_KERNEL_GRACE when a queue is created.
func kernelGrace() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv("HIPGO_KERNEL_GRACE"))
	if v == "" {
		return defaultKernelGrace, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue create", "HIPGO_KERNEL_GRACE=%q: want a positive duration such as 3s", v)
	}
	return d, nil
}

// KernelGrace is how long the queue waits for a cancelled kernel before
// abandoning it (HIPGO_KERNEL_GRACE when the queue was made).
func (q *Queue) KernelGrace() time.Duration { return q.grace }

// watched reports whether the packet of type typ in slot, which the
// processor is about to run, may be abandoned: a kernel dispatch on an
// executor that can abandon kernels, or a host callback (whose function
// may wait for something that never comes: a collective's peer).
func (q *Queue) watched(slot unsafe.Pointer, typ aql.PacketType) bool {
	switch typ {
	case aql.TypeKernelDispatch:
		return q.abandoner != nil
	case aql.TypeAgentDispatch:
		return (*aql.AgentDispatch)(slot).Type == aql.AgentCallback
	}
	return false
}

// Abandon gives up on packet id, a kernel dispatch or host callback the
// processor is still running: the packet completes with err (and fails
// the queue unless it is being destroyed), a new processor goroutine runs
// the packets after it, and the goroutine left in the kernel or callback
// ends quietly when it returns. It reports false, and does nothing, if
// the packet has ended or is not one that can be abandoned (a kernel of
// an executor that cannot abandon its kernels).
func (q *Queue) Abandon(id uint64, err error) bool {
	if !q.executing.CompareAndSwap(id+1, 0) {
		return false
	}
	q.abandoned.Add(1)
	if q.abandoner != nil {
		q.abandoner.Abandon(q)
	}
	// The stranded goroutine keeps the agent work it decoded, if any.
	q.work.Store(nil)
	slot := q.Slot(id)
	q.complete(id, slot, aql.Header(atomic.LoadUint32((*uint32)(slot))), clock.Now(), err)
	atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
	atomic.StoreUint64(q.readIdx, id+1)
	// The stranded goroutine holds the executor lock: it is the new
	// processor's now.
	q.execMu.Unlock()
	go q.processFrom()
	return true
}

// strand ends the part of a processor goroutine whose kernel dispatch id
// was abandoned meanwhile; false: it was not, and the goroutine carries on.
func (q *Queue) strand(id uint64) bool {
	if q.executing.CompareAndSwap(id+1, 0) {
		return false
	}
	if q.abandoner != nil {
		q.abandoner.Released(q)
	}
	q.abandoned.Add(-1)
	return true
}

// awaitProcessor waits for the processor of a queue being destroyed to
// stop. A kernel or host callback that still runs after the grace is
// abandoned, and the error that says so is returned.
func (q *Queue) awaitProcessor() error {
	t := time.NewTimer(q.grace)
	defer t.Stop()
	select {
	case <-q.done:
		return nil
	case <-t.C:
	}
	var err error
	if e := q.executing.Load(); e != 0 {
		id := e - 1
		what := "its kernel"
		slot := q.Slot(id)
		if aql.Header(atomic.LoadUint32((*uint32)(slot))).Type() == aql.TypeAgentDispatch {
			what = "its host function (packet " + strconv.FormatUint(id, 10) + ")"
		} else if n, ok := q.exec.(spi.KernelNamer); ok {
			what = "kernel " + n.KernelName((*aql.KernelDispatch)(slot).KernelObject)
		}
		aerr := hsa.Newf(hsa.ErrAbandoned, hsa.StatusErrorInvalidQueue, "queue destroy", "queue %d: %s still ran %v after the queue was destroyed and was abandoned: its goroutine runs on until it returns, and the memory it can touch stays allocated until then", q.id, what, q.grace)
		if q.Abandon(id, aerr) {
			err = aerr
		}
	}
	<-q.done
	return err
}

// RunningKernel is the packet id of the kernel dispatch or host callback
// the processor is running, which Abandon may give up on; false when it
// runs none (or a kernel the executor cannot abandon).
func (q *Queue) RunningKernel() (uint64, bool) {
	e := q.executing.Load()
	return e - 1, e != 0
}
