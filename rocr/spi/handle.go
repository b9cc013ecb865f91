package spi

import (
	"time"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Queue is a soft queue as its Executor sees it: rocr's *Queue, which a
// driver that needs the runtime's view of it (its agent, for ownership
// checks) may assert to.
type Queue interface {
	ID() uint64
	// Size is the ring's number of packet slots.
	Size() uint32
	LoadReadIndex() uint64
	// Destroyed reports whether the queue is being destroyed: work that
	// waits should give up.
	Destroyed() bool
	// KernelGrace is how long past its timeout a kernel may run before the
	// queue abandons it.
	KernelGrace() time.Duration
	// Abandon gives up on the kernel of packet id with err (see Abandoner);
	// it reports whether that kernel was still running.
	Abandon(id uint64, err error) bool
	// WaitBarrier resolves a barrier packet of the queue on the calling
	// goroutine.
	WaitBarrier(p *aql.BarrierAnd, or bool) error
}

// Signal is a signal as a driver's copy engine sees it (rocr's *Signal):
// it waits for dependencies and completes the operation's signal.
type Signal interface {
	Handle() uint64
	Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64
	Sub(d int64, o hsa.Order) int64
	// Fail records err as the signal's error before it completes.
	Fail(err error)
	Err() error
}
