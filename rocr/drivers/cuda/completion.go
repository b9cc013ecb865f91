package cuda

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/spi"
)

// deferred is a completion signal whose packet's work is queued on the
// stream: the host completes it once the progress counter reaches seq, or
// once ev, the event of a record, has passed.
type deferred struct {
	sig spi.HostSignal
	seq uint64
	arm uint64  // sig.Armed() when deferred
	ev  uintptr // an event record's CUDA event (0: none)
}

// recSlots is how many event records may be in flight on a stream with an
// event of their own; a record beyond them writes the progress count.
const recSlots = 32

// complete has the host complete signal h once the work queued so far is
// done: the signal is deferred to the progress count (no driver call).
// For an event record (record), it also records a CUDA event of the
// record's own at this point of the stream, and reports whether it did:
// the record is then observed through that event, not a progress write.
func (e *executor) complete(h uint64, record bool) (bool, error) {
	if h == 0 {
		return false, nil
	}
	s, err := e.signal(h)
	if err != nil {
		return false, e.fail(err)
	}
	if !e.memops || e.progDev == 0 || s.Addr() == 0 {
		// No GPU write possible, or a signal with no record here (an
		// interprocess event's shared page), which another process
		// watches and nothing in this one would settle: wait for the
		// stream, complete on the host.
		if err := e.sync(); err != nil {
			return false, err
		}
		s.Sub(1, hsa.Release)
		return false, nil
	}
	e.lazyMu.Lock()
	if e.rn == len(e.ring) {
		// Every slot holds a signal nobody has observed: let the stream
		// catch up, which completes them all.
		e.lazyMu.Unlock()
		if err := e.sync(); err != nil {
			return false, e.fail(err)
		}
		e.drain(nil)
		e.lazyMu.Lock()
	}
	var ev uintptr
	if record && e.recN < recSlots && e.event != 0 && e.api.cuEventQuery != 0 {
		// The slot is free and only this goroutine fills slots, so its
		// event is recorded outside the lock; its previous record
		// passed already (it was settled).
		i := (e.recHead + e.recN) % recSlots
		e.lazyMu.Unlock()
		ev = e.recordEvent(i)
		e.lazyMu.Lock()
		if ev != 0 {
			e.recSeq[i] = e.seq + 1
			e.recN++
		}
	}
	e.seq++
	e.ring[(e.rhead+e.rn)%len(e.ring)] = deferred{sig: s, seq: e.seq, arm: s.Armed(), ev: ev}
	e.rn++
	e.lazyMu.Unlock()
	e.issued.Store(e.seq)
	if ev != 0 {
		e.lastRec.Store(e.seq)
	}
	s.Defer(e.ref, e.seq)
	return ev != 0, nil
}

// recordEvent records slot i's event, creating it on first use, at the
// current end of the stream, and returns it, or 0 if the driver refused.
// It runs under the executor lock with the context current.
func (e *executor) recordEvent(i int) uintptr {
	if e.recEv[i] == 0 {
		var ev uintptr
		if res(purego.SyscallN(e.api.cuEventCreate, uintptr(unsafe.Pointer(&ev)), eventDisableTiming)) != cudaSuccess {
			return 0
		}
		e.recEv[i] = ev
	}
	if e.sa.call(e.api.cuEventRecord, e.recEv[i], e.stream) != cudaSuccess {
		return 0
	}
	return e.recEv[i]
}

// Flush makes seq observable soon (spi.Completer): an event record at or
// after seq already is, once Settle queries its event; otherwise it queues a
// write of the progress count that covers seq, unless one is queued
// already. It runs on any goroutine, beside the executor's own calls.
func (e *executor) Flush(seq uint64) { e.flushOn(seq, 0) }

// flushOn is Flush from a thread that is locked with context cur current
// (0: unknown): where cur is the executor's, the write needs no
// cuCtxSetCurrent of its own.
func (e *executor) flushOn(seq uint64, cur uintptr) {
	if e.lastRec.Load() >= seq {
		// Settle queries the records' events until seq is done; a settle
		// nobody asked for (a fence's Done) asks the driver nothing.
		for {
			if w := e.wantRec.Load(); w >= seq || e.wantRec.CompareAndSwap(w, seq) {
				return
			}
		}
	}
	e.flushProgress(seq, cur)
}

// flushProgress queues a write of the progress count that covers seq,
// unless one is queued already: what a GPU waiting on the progress word
// needs. The value written is the count of work queued before the write.
// cur is the context current on the caller's locked thread, or 0; the
// executor's own is made current only where it is not that one.
func (e *executor) flushProgress(seq uint64, cur uintptr) {
	if e.flushed.Load() >= seq {
		return
	}
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	v := e.issued.Load()
	if e.flushed.Load() >= seq || v < seq || e.stream == 0 {
		return
	}
	set := cur != e.dev.ctx
	if set {
		runtime.LockOSThread()
		e.fsa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	}
	r := e.fsa.call(e.api.cuStreamWriteValue64, e.stream, e.progDev, uintptr(v), 0)
	if set {
		runtime.UnlockOSThread()
	}
	if r == cudaSuccess {
		e.flushed.Store(v)
	}
}

// flushHere is Flush from a packet method: the executor lock is held,
// the thread is locked and the context current (ctx), so the write needs
// no cuCtxSetCurrent of its own and goes through the executor's block.
func (e *executor) flushHere(seq uint64) {
	if e.flushed.Load() >= seq {
		return
	}
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	v := e.issued.Load()
	if e.flushed.Load() >= seq || v < seq || e.stream == 0 {
		return
	}
	if e.sa.call(e.api.cuStreamWriteValue64, e.stream, e.progDev, uintptr(v), 0) == cudaSuccess {
		e.flushed.Store(v)
	}
}

// spareArgs are argument blocks for the calls that cannot use an
// executor's own (Await, a chain's launch): they may run on several
// goroutines at once.
var spareArgs = sync.Pool{New: func() any { return new(sysArgs) }}

// Await synchronizes the stream on the caller's thread when seq is the
// last completion queued (a Synchronize of the stream's tail): the
// driver's own wait, as a native program does, instead of a progress write
// and a poll. For an earlier packet, which the stream may be far past, it
// declines (spi.Completer).
func (e *executor) Await(seq uint64) bool {
	v := e.issued.Load()
	if seq != v || e.settled.Load() >= seq {
		return false
	}
	sa := spareArgs.Get().(*sysArgs)
	defer spareArgs.Put(sa)
	e.flushMu.Lock()
	stream := e.stream
	e.flushMu.Unlock()
	if stream == 0 {
		return false
	}
	runtime.LockOSThread()
	sa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	r := sa.call(e.api.cuStreamSynchronize, stream)
	runtime.UnlockOSThread()
	if r != cudaSuccess {
		return false // the poller reports the failure and completes the signals
	}
	e.completeTo(v)
	return true
}

// CompleterRef is what the executor's signals carry (spi.CompleterOf).
func (e *executor) CompleterRef() *spi.CompleterRef { return e.ref }

// Settle completes the deferred signals whose work the progress count
// says is done (spi.Completer).
func (e *executor) Settle() { e.settle(0) }

// settle is Settle from a thread locked with context cur current, or 0.
func (e *executor) settle(cur uintptr) {
	if p := uint64(e.progress.Load(hsa.Acquire)); p > e.settled.Load() {
		e.completeTo(p)
	}
	if e.wantRec.Load() > e.settled.Load() {
		e.settleRecords(cur)
	}
}

// settleRecords completes the work up to each event record, oldest first,
// whose event the GPU has passed. The context is made current once, where
// cur (the one current on the caller's locked thread, or 0) is not it.
func (e *executor) settleRecords(cur uintptr) {
	sa := spareArgs.Get().(*sysArgs)
	defer spareArgs.Put(sa)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		seq := e.passedRecord(sa, cur)
		cur = e.dev.ctx
		if seq == 0 {
			return
		}
		e.completeTo(seq)
	}
}

// passedRecord returns the completion of the oldest record in flight if
// the GPU has passed its event, or 0. flushMu keeps the events alive
// (destroyStream); a slot settled and recorded again meanwhile answers for
// a later record, whose passing implies this one's. The caller's thread
// is locked.
func (e *executor) passedRecord(sa *sysArgs, cur uintptr) uint64 {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	if e.stream == 0 {
		return 0
	}
	e.lazyMu.Lock()
	if e.recN == 0 {
		e.lazyMu.Unlock()
		return 0
	}
	seq, ev := e.recSeq[e.recHead], e.recEv[e.recHead]
	e.lazyMu.Unlock()
	if cur != e.dev.ctx {
		sa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	}
	if sa.call(e.api.cuEventQuery, ev) != cudaSuccess {
		return 0 // not yet passed, or failed: Poll reports a failure
	}
	return seq
}

// completeTo completes the deferred signals up to seq p, which the
// stream is known to have passed, and what that proves of other streams:
// where the stream waited on the GPU for another's work before p (prove),
// that work is done too, and its signals complete here without a query
// of their own (an event record waited for by a stream that was then
// synchronized). Each stream's lock is taken in turn, never two at once.
func (e *executor) completeTo(p uint64) {
	for e != nil {
		e.lazyMu.Lock()
		e.completeUpTo(p, nil)
		o, seq := e.proofOn, e.proofSeq
		if o != nil && p > e.proofAt {
			e.proofOn = nil
		} else {
			o = nil
		}
		e.lazyMu.Unlock()
		if o == nil || o.settled.Load() >= seq {
			return
		}
		e, p = o, seq
	}
}

// completeUpTo completes deferred signals up to seq p, failed with err if
// not nil. The caller holds lazyMu.
func (e *executor) completeUpTo(p uint64, err error) {
	for e.rn > 0 && e.ring[e.rhead].seq <= p {
		d := &e.ring[e.rhead]
		s, arm := d.sig, d.arm
		*d = deferred{}
		e.rhead = (e.rhead + 1) % len(e.ring)
		e.rn--
		// A signal re-armed since is no longer awaited by this completion.
		s.CompleteArmed(arm, err)
	}
	for e.recN > 0 && e.recSeq[e.recHead] <= p {
		e.recHead = (e.recHead + 1) % recSlots
		e.recN--
	}
	if p > e.settled.Load() {
		e.settled.Store(p)
	}
}

// drain completes every deferred signal once the stream is idle (after
// sync), failed with err if the stream failed.
func (e *executor) drain(err error) {
	e.lazyMu.Lock()
	e.completeUpTo(e.issued.Load(), err)
	e.lazyMu.Unlock()
}

// completeHost completes signal h on the host once the stream is idle.
func completeHost(h uint64) {
	if h == 0 {
		return
	}
	if s, err := host.SignalFromHandle(h); err == nil {
		s.SetTimestamps(clock.Now(), clock.Now())
		s.Sub(1, hsa.Release)
	}
}

// Poll runs on the processor goroutine every millisecond while the queue
// is idle: it flushes the progress count so that signals nobody waits on
// still complete, and reports an asynchronous failure of the work in
// flight (a kernel that faulted: CUDA makes the error sticky and the
// progress write never lands). On a failure it completes every deferred
// signal with the error, so no waiter hangs, and returns it to fail the
// queue.
func (e *executor) Poll() error {
	if !e.bound || !e.memops {
		return nil
	}
	issued := e.issued.Load()
	e.flushOn(issued, e.dev.ctx) // the processor's thread holds the context (BindThread)
	e.settle(e.dev.ctx)
	if e.settled.Load() >= issued {
		return nil
	}
	r := e.sa.call(e.api.cuStreamQuery, e.stream)
	if r == cudaSuccess || r == cudaNotReady {
		return nil
	}
	err := cuErr("stream", "work in flight failed: cuStreamQuery", r)
	e.lazyMu.Lock()
	e.completeUpTo(issued, err)
	e.lazyMu.Unlock()
	return err
}
