package rocr

import (
	"sync/atomic"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// A Reset frees its agent's memory while queues of other agents may still
// hold packets that use it (host memory, managed memory, memory
// transferred or reached through peer access). Such an allocation is
// freed at once (later packets that name it fail, as for any freed
// memory) but its memory goes back to the driver only once those queues
// have run past the packets submitted before the reset: a new allocation
// at the same address must not receive their writes. The Reset does not
// wait for them, so a packet that waits for the caller cannot hang it.

// queueMark is a point in a queue: the packets before index w.
type queueMark struct {
	q *Queue
	w uint64
}

// passed reports whether the queue ran every packet before the mark, or
// stopped running packets.
func (m queueMark) passed() bool {
	if m.q.LoadReadIndex() >= m.w {
		return true
	}
	select {
	case <-m.q.done:
		return true
	default:
		return false
	}
}

// deferredFree is an allocation whose memory waits for marks.
type deferredFree struct {
	al    *Allocation
	marks []queueMark
}

// deferred counts the runtime's deferred frees, so that Allocate looks at
// the list only when it holds something.
var deferred atomic.Int64

// foreignMarks returns, for each queue of another agent than a that may
// use al and has packets not run yet, the mark of its packets so far.
func foreignMarks(a *Agent, al *Allocation, qs []*Queue) []queueMark {
	var marks []queueMark
	for _, q := range qs {
		if q.agent == a || al.CheckAccess(q.agent) != nil {
			continue
		}
		m := queueMark{q: q, w: q.LoadWriteIndex()}
		if !m.passed() {
			marks = append(marks, m)
		}
	}
	return marks
}

// freeAfter frees al now and returns its memory to the driver once every
// mark has passed.
func (al *Allocation) freeAfter(marks []queueMark) error {
	if !al.freed.CompareAndSwap(false, true) {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "%s was already freed", al)
	}
	allocs.remove(al)
	rt := al.pool.agent.rt
	rt.mu.Lock()
	rt.deferred = append(rt.deferred, deferredFree{al: al, marks: marks})
	rt.mu.Unlock()
	deferred.Add(1)
	return nil
}

// releaseDeferred returns to the driver the deferred memory whose marks
// passed (all: all of it, the queues being gone).
func (rt *rtState) releaseDeferred(all bool) {
	if deferred.Load() == 0 {
		return
	}
	rt.mu.Lock()
	var ready []*Allocation
	j := 0
	for _, d := range rt.deferred {
		ok := true
		for _, m := range d.marks {
			ok = ok && (all || m.passed())
		}
		if ok {
			ready = append(ready, d.al)
			continue
		}
		rt.deferred[j] = d
		j++
	}
	clear(rt.deferred[j:])
	rt.deferred = rt.deferred[:j]
	rt.mu.Unlock()
	deferred.Add(-int64(len(ready)))
	for _, al := range ready {
		_ = al.pool.drv.Free(al.Base, al.cap) // freed already, as far as the program knows
		al.pool.used.Add(-al.cap)
	}
}
