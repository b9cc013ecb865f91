package cpu

import (
	"context"
	"runtime/pprof"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/rocr/argext"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
	"github.com/hipgo/hipgo/rocr/spi"
)

// job is one kernel dispatch being run.
// dispatches numbers dispatches, so what a worker keeps for one (the
// kernel SDK's argument views) is known not to belong to another.
var dispatches atomic.Uint64

type job struct {
	seq     uint64 // this dispatch's number
	k       *kern
	kernarg unsafe.Pointer
	size    [3]int
	grid    [3]int
	count   [3]int
	total   int64
	chunk   int64
	shared  int
	next    atomic.Int64
	hidden  uintptr     // under -race: the claim counter, outside the Go heap
	marks   chan marked // under -race: raceDispatch's groups' runners
	failed  atomic.Pointer[error]

	// helpers: bits 0-31 tickets (workers that may still join), 32-61
	// workers running the job, bit 62 set once it is abandoned, bit 63
	// set once the dispatcher stops waiting for more. A worker stuck in a
	// runaway kernel of another dispatch never takes its ticket, and the
	// dispatch does not wait for it: it revokes the tickets left when its
	// own share is done.
	helpers atomic.Uint64
	left    chan struct{} // the last running helper leaves after the revoke

	// pg is the group of the queue's processor; watch, the watchdog of a
	// dispatch with a timeout, armed with its packet id+1.
	pg      group
	watch   *time.Timer
	armed   atomic.Uint64
	expires atomic.Uint64 // when the armed dispatch is abandoned, in clock.Now nanoseconds
	bound   atomic.Int64  // its timeout
	kernel  atomic.Pointer[kern]

	// Cooperative cancellation: the dispatch's queue (destroyed: cancel)
	// and its deadline in clock.Now nanoseconds (0: none); id is the
	// dispatch's packet id in queue.
	queue    spi.Queue
	id       uint64
	deadline uint64
	canceled atomic.Bool

	// strict (HIPGO_STRICT_PTR=1): every access must fall in an allocation
	// one of the kernel's pointer arguments points into (allowed).
	strict  bool
	allowed []uintptr // the allocations' bases
	// argPtrs are the pointer arguments' values, extents the views some
	// of them were given (argext.Take): an access through one
	// must stay in its view.
	argPtrs []uintptr
	extents []argext.Extent

	// barrier is the grid barrier of a cooperative dispatch; nil otherwise.
	barrier *gridBarrier

	// sanitize (spi.Sanitizing): the pointer arguments' allocations, for
	// telling reads from writes.
	sanitize bool
	sanArgs  []sanArg
}

// allows reports whether strict mode lets the kernel touch a.
func (j *job) allows(a spi.Allocation) bool {
	for _, x := range j.allowed {
		if x == a.Base {
			return true
		}
	}
	return false
}

const (
	ticketMask   = 1<<32 - 1
	runningUnit  = 1 << 32
	runningMask  = (1<<30 - 1) << 32
	abandonedBit = 1 << 62
	revokedBit   = 1 << 63
)

// claim turns one ticket into a running helper; false: none is left (a
// token of a dispatch that already ended, or one that needs no more help).
func (j *job) claim() bool {
	for {
		s := j.helpers.Load()
		if s&ticketMask == 0 || s&(revokedBit|abandonedBit) != 0 {
			return false
		}
		if j.helpers.CompareAndSwap(s, s-1+runningUnit) {
			return true
		}
	}
}

// leave ends a helper's part; false: the job was abandoned while the
// helper ran it, and a new worker has taken the helper's place.
func (j *job) leave() bool {
	s := j.helpers.Add(^uint64(runningUnit - 1))
	if s&^abandonedBit == revokedBit {
		j.left <- struct{}{}
	}
	return s&abandonedBit == 0
}

// abandon takes back the job's tickets and puts a new worker in the
// place of each helper still running it, which leave then lets go.
func (j *job) abandon(p *workerPool) {
	for {
		s := j.helpers.Load()
		if j.helpers.CompareAndSwap(s, s&^ticketMask|abandonedBit) {
			for n := (s & runningMask) >> 32; n > 0; n-- {
				go p.loop()
			}
			return
		}
	}
}

// revoke takes back the tickets no worker claimed and waits for the
// helpers that did.
func (j *job) revoke() {
	for {
		s := j.helpers.Load()
		if j.helpers.CompareAndSwap(s, (s&^ticketMask)|revokedBit) {
			if s&runningMask != 0 {
				<-j.left
			}
			return
		}
	}
}

// cancelled reports whether the dispatch should stop: its queue is being
// destroyed or its deadline passed. It latches.
func (j *job) cancelled() bool {
	if j.canceled.Load() {
		return true
	}
	if (j.queue != nil && j.queue.Destroyed()) || (j.deadline != 0 && clock.Now() > j.deadline) {
		j.canceled.Store(true)
		return true
	}
	return false
}

// Canceled reports whether the kernel should stop at once: its dispatch
// ran past the queue's kernel timeout (HIPGO_KERNEL_TIMEOUT,
// Queue.SetKernelTimeout, stream.Stream.SetKernelTimeout) or its queue is
// being destroyed (gpu.Shutdown). A kernel that may run long polls it and
// returns; the dispatch then fails with an error wrapping hsa.ErrTimeout
// (or the queue's destruction), and its remaining work-groups do not run.
// Go cannot stop a goroutine from outside: a kernel that never polls runs
// on, and is abandoned a grace later (see the package doc).
func (g *group) Canceled() bool { return g.job != nil && g.job.cancelled() }

// bind readies g to run the job's work-groups.
func (j *job) bind(g *group) {
	g.queue, g.kernel, g.job, g.dispatch = j.queue, j.k, j, j.seq
	g.Size, g.Grid, g.Count = j.size, j.grid, j.count
	if cap(g.shared) < j.shared {
		g.shared = make([]byte, j.shared)
	}
	g.shared = g.shared[:j.shared]
	g.resetCache()
}

func (j *job) work(g *group) {
	pprof.SetGoroutineLabels(j.k.labels)
	defer pprof.SetGoroutineLabels(context.Background())
	j.bind(g)
	for {
		if j.cancelled() {
			j.stopClaims()
			return
		}
		lo := j.claimChunk()
		if lo >= j.total {
			return
		}
		hi := min(lo+j.chunk, j.total)
		if !j.runChunk(g, lo, hi) {
			j.stopClaims()
			return
		}
	}
}

func (j *job) runChunk(g *group, lo, hi int64) (ok bool) {
	returned := false
	defer func() {
		r := recover()
		if r == nil && returned {
			return
		}
		var err error
		switch e := r.(type) {
		case errGridBroken:
			ok = false // the failure or cancellation that broke it is the dispatch's
			return
		case nil:
			// recover gives nil only under runtime.Goexit: the goroutine
			// ends whatever happens here, so stop the job for its owner.
			err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel %s work-group %v called runtime.Goexit", j.k.name, g.ID)
			j.stopClaims()
		case error:
			if errtext.IsNilValue(e) {
				err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel %s work-group %v panicked with a nil %T", j.k.name, g.ID, e)
			} else if ae, isAccess := e.(*AccessError); isAccess {
				ae.File, ae.Line, _ = j.where(kernelimpl.KernelFunc(g), false)
				err = hsa.Errorf(hsa.StatusErrorMemoryApertureViolation, "dispatch", "%w", ae)
			} else {
				err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "%w", j.panicError(g, r))
			}
		default:
			err = hsa.Errorf(hsa.StatusErrorException, "dispatch", "%w", j.panicError(g, r))
		}
		if j.failed.CompareAndSwap(nil, &err) {
			j.failedNow(err)
		}
		ok = false
	}()
	c0, c1 := int64(j.count[0]), int64(j.count[1])
	for i := lo; i < hi; i++ {
		g.ID = [3]int{int(i % c0), int(i / c0 % c1), int(i / (c0 * c1))}
		j.k.run(g, j.kernarg)
		if j.canceled.Load() {
			returned = true
			return false
		}
	}
	returned = true
	return true
}

// failedNow follows the dispatch's first failure, err: the work-groups
// still running are cancelled (Canceled reports true), and those that
// have not returned a grace later (HIPGO_KERNEL_GRACE) are abandoned, as
// a runaway kernel is: the dispatch fails with err and hsa.ErrAbandoned,
// and the queue goes on without waiting for work-groups that neither
// return nor poll Canceled. A dispatch that ended by then is left alone
// (Abandon finds another packet, or none, running).
func (j *job) failedNow(err error) {
	j.canceled.Store(true)
	q, id, name := j.queue, j.id, j.k.name
	if q == nil {
		return
	}
	grace := q.KernelGrace()
	time.AfterFunc(grace, func() {
		aerr := hsa.Newf(hsa.ErrAbandoned, hsa.StatusOf(err), "dispatch", "%w; kernel %s: its other work-groups still ran %v after it failed and were abandoned: their goroutines run on until they return, and the memory they can touch stays allocated until then", err, name, grace)
		q.Abandon(id, aerr)
	})
}

// result is the dispatch's outcome once its groups are done: the first
// failure, or its cancellation.
func (j *job) result(q spi.Queue, timeout time.Duration) error {
	if p := j.failed.Load(); p != nil {
		return *p
	}
	if j.canceled.Load() {
		if q.Destroyed() {
			return hsa.Errorf(hsa.StatusErrorInvalidQueue, "dispatch", "kernel %s cancelled: queue %d destroyed while it ran", j.k.name, q.ID())
		}
		return hsa.Newf(hsa.ErrTimeout, hsa.StatusErrorException, "dispatch", "kernel %s cancelled: it ran past the queue's kernel timeout of %v", j.k.name, timeout)
	}
	return nil
}
