package rocr

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Reserve reserves the next packet slot, waiting while the ring is full.
// The returned id is the packet id; the caller writes the body into
// Slot(id), then calls Publish.
//
// From Reserve to Publish the caller is a writer of the queue: Destroy
// waits for it to publish before it stops the processor and unmaps the
// ring and the kernarg areas, so a submission racing Destroy (or
// ShutDown) either fails here or is published and then failed with the
// queue, and never writes into unmapped memory.
func (q *Queue) Reserve() (uint64, error) {
	q.writers.Add(1)
	if q.closing.Load() {
		q.writers.Add(-1)
		return 0, hsa.Errorf(hsa.StatusErrorInvalidQueue, "submit", "queue %d was destroyed", q.id)
	}
	// A packet of this queue that fills it would wait for its own end.
	if q.LoadWriteIndex()-q.LoadReadIndex() >= uint64(q.size) && q.fullForItself() {
		q.writers.Add(-1)
		return 0, hsa.Errorf(hsa.StatusError, "submit", "queue %d is full and its own packet submits to it: %w", q.id, ErrSelfWait)
	}
	id := q.AddWriteIndex(1)
	if id-q.LoadReadIndex() >= uint64(q.size) {
		if err := q.waitSpace(id); err != nil {
			q.writers.Add(-1)
			return 0, err
		}
	}
	return id, nil
}

// fullForItself reports whether the queue stays full and the caller runs
// one of its packets. Asking costs a stack trace (a few microseconds), so
// it asks only once the queue has stayed full for selfWaitAfter while the
// caller yielded: a queue its processor drains (back-to-back submissions
// outrunning the GPU) frees a slot long before that, and a packet that
// waits for its own queue's end waits forever.
func (q *Queue) fullForItself() bool {
	var since time.Time
	for i := 0; ; i++ {
		if q.closing.Load() || q.LoadWriteIndex()-q.LoadReadIndex() < uint64(q.size) {
			return false
		}
		if i >= 8 {
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= selfWaitAfter {
				return RunningQueue() == q
			}
		}
		runtime.Gosched()
	}
}

// selfWaitAfter is how long a queue stays full before a submitter asks
// whether it is one of the queue's own packets.
const selfWaitAfter = 50 * time.Microsecond

// waitSpace waits until slot id is free. A queue destroyed meanwhile never
// frees it: that is an error, not a hang.
func (q *Queue) waitSpace(id uint64) error {
	sleep := time.Microsecond
	for i := 0; ; i++ {
		// Destroy drains the ring, which frees the slot but not for use.
		if q.closing.Load() {
			return hsa.Errorf(hsa.StatusErrorInvalidQueue, "submit", "queue %d was destroyed while waiting for a free slot", q.id)
		}
		if id-q.LoadReadIndex() < uint64(q.size) {
			return nil
		}
		// A full ring holds a long run of work: yield a little, then sleep
		// rather than spin the scheduler (which slows the processor that
		// is draining the ring).
		if i < 8 {
			runtime.Gosched()
			continue
		}
		time.Sleep(sleep)
		if sleep < 100*time.Microsecond {
			sleep *= 2
		}
	}
}

// Publish makes packet id visible to the agent: header and setup in one
// release store, then the doorbell.
func (q *Queue) Publish(id uint64, h aql.Header, setup uint16) {
	slot := (*uint32)(q.Slot(id))
	if raceflag.Enabled {
		q.published.Add(1)
	}
	word := uint32(h) | uint32(setup)<<16
	if q.inline == nil || !q.runInline(id, word) {
		if q.completer != nil {
			// The processor will run it: name its completer now, so that
			// a barrier of another queue that meets the signal first
			// waits for this queue to issue the work (a GPU-side wait),
			// not for a host completion nobody would hurry.
			if s, err := SignalFromHandle(completionOf(unsafe.Pointer(slot))); err == nil {
				q.Expect(s)
			}
		}
		atomic.StoreUint32(slot, word)
		q.doorbell.Store(int64(id), hsa.Release)
	}
	q.writers.Add(-1)
}

// runInline carries packet id out on the calling goroutine when it is the
// next one the processor would take and nobody is executing: the idle
// queue's packet skips the hop to the processor. It reports whether it did.
func (q *Queue) runInline(id uint64, word uint32) bool {
	if !q.execMu.TryLock() {
		return false
	}
	slot := q.Slot(id)
	h := aql.Header(word)
	// The executor reads the whole packet, the setup half of the first
	// word too (an AGENT_DISPATCH's function code): it goes in now, with
	// the header still invalid, so the processor does not take it yet.
	atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid)|word&^0xffff)
	if atomic.LoadUint64(q.readIdx) != id || q.closing.Load() || !q.inline.Inline(h, slot) {
		q.execMu.Unlock()
		return false
	}
	// The packet reads as published while it runs (validation, tracing).
	atomic.StoreUint32((*uint32)(slot), word)
	q.inline.Enter()
	q.execute(id, slot, h, false)
	q.inline.Leave()
	atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
	atomic.StoreUint64(q.readIdx, id+1)
	q.execMu.Unlock()
	return true
}

// Submit copies a 64-byte packet whose header is h into the queue and
// publishes it. The header word in pkt is ignored. On a hardware queue an
// AGENT_DISPATCH packet becomes two barrier packets around work that rocr
// hands to the agent's copy engine (hwagent.go); the id returned is the
// second's.
func (q *Queue) Submit(pkt unsafe.Pointer, h aql.Header) (uint64, error) {
	if q.exec == nil && h.Type() == aql.TypeAgentDispatch {
		return q.submitAgent(pkt) // a hardware ring cannot run it
	}
	id, err := q.Reserve()
	if err != nil {
		return 0, err
	}
	dst := q.Slot(id)
	// Body first (bytes 4..63), header word last.
	*(*[aql.PacketSize - 4]byte)(unsafe.Add(dst, 4)) = *(*[aql.PacketSize - 4]byte)(unsafe.Add(pkt, 4))
	setup := *(*uint16)(unsafe.Add(pkt, 2))
	q.Publish(id, h, setup)
	return id, nil
}
