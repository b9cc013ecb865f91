package rocr

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/internal/runner"
	"github.com/hipgo/hipgo/rocr/spi"
)

// process is the packet processor of a soft queue: it does what a GPU's
// command processor does, strictly in order.
func (q *Queue) process() { q.processFrom() }

// processFrom runs packets from the read index on. A kernel or host
// callback that calls runtime.Goexit ends this goroutine while it holds
// the executor: the deferred function fails that packet and a new
// goroutine carries on, so the queue does not hang.
func (q *Queue) processFrom() {
	var id uint64
	running := false  // a packet is being executed
	watched := false  // it is a kernel dispatch that may be abandoned
	stranded := false // it was abandoned: the queue is another goroutine's
	ex := runner.Mark[Queue]()
	ex.Serve(q)
	defer func() {
		ex.Close()
		if stranded {
			return
		}
		if running { // only runtime.Goexit in a kernel or callback gets here
			if watched && q.strand(id) {
				return // abandoned: another goroutine runs the queue
			}
			q.exited(id)
			q.execMu.Unlock()
			go q.processFrom()
			return
		}
		q.stopped()
	}()
	if b, ok := q.exec.(spi.ThreadBinder); ok {
		b.BindThread()
	}
	idle := false
	for {
		if q.closing.Load() {
			// A submitter between Reserve and Publish publishes into a
			// slot drain would skip as empty, and its packet would never
			// complete: let it finish first.
			q.waitWriters()
			q.drain(q.LoadReadIndex())
			return
		}
		db := q.doorbell.Load(hsa.Acquire)
		q.execMu.Lock()
		// Submitters may have run packets inline: the read index, not a
		// local count, says which packet is next.
		id = q.LoadReadIndex()
		slot := q.Slot(id)
		word := atomic.LoadUint32((*uint32)(slot))
		if aql.Header(word).Type() == aql.TypeInvalid {
			q.execMu.Unlock()
			if !q.closing.Load() {
				var timeout time.Duration // forever
				if q.poller != nil {
					timeout = pollInterval
				}
				// A processor whose last wait ran out with nothing rung
				// is idle: it sleeps at once instead of spinning 50 µs
				// each poll, which with 256 idle streams kept 13 cores
				// busy. The doorbell's store still wakes it.
				hint := hsa.WaitActive
				if idle {
					hint = hsa.WaitBlocked
				}
				var v int64
				if q.lockedThread {
					v = q.doorbell.waitNoYield(hsa.CondNE, db, timeout, hint)
				} else {
					v = q.doorbell.Wait(hsa.CondNE, db, timeout, hint)
				}
				idle = v == db
				if q.poller != nil && q.Err() == nil {
					q.execMu.Lock()
					err := q.poller.Poll()
					q.execMu.Unlock()
					if err != nil {
						q.fail(err)
					}
				}
			}
			continue
		}
		if raceflag.Enabled {
			q.published.Load()
		}
		running = true
		watched = q.watched(slot, aql.Header(word).Type())
		if watched {
			q.executing.Store(id + 1)
		}
		if !q.execute(id, slot, aql.Header(word), watched) {
			running, stranded = false, true
			return // abandoned: another goroutine runs the queue now
		}
		running, watched, idle = false, false, false
		atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
		atomic.StoreUint64(q.readIdx, id+1)
		q.execMu.Unlock()
	}
}

// pollInterval is how often an idle processor asks a Poller executor for
// asynchronous failures of work in flight.
const pollInterval = time.Millisecond

// drain completes the signals of packets published after Destroy began.
func (q *Queue) drain(id uint64) {
	w := q.LoadWriteIndex()
	for ; id < w; id++ {
		slot := q.Slot(id)
		if aql.Header(atomic.LoadUint32((*uint32)(slot))).Type() == aql.TypeInvalid {
			continue
		}
		derr := hsa.Errorf(hsa.StatusErrorInvalidQueue, "queue", "queue %d destroyed before packet %d ran", q.id, id)
		discard(slot, aql.Header(atomic.LoadUint32((*uint32)(slot))).Type(), derr)
		h := completionOf(slot)
		if s, err := SignalFromHandle(h); err == nil {
			s.Fail(derr)
			s.Sub(1, hsa.Release)
		}
		atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
		atomic.StoreUint64(q.readIdx, id+1)
	}
}

// completionOf reads the completion signal, at offset 56 in every packet.
func completionOf(slot unsafe.Pointer) uint64 { return *(*uint64)(unsafe.Add(slot, 56)) }

// execute runs packet id. watched: a kernel dispatch the processor runs,
// which may be abandoned meanwhile; execute then reports false and leaves
// the packet alone.
func (q *Queue) execute(id uint64, slot unsafe.Pointer, h aql.Header, watched bool) bool {
	var err error
	start := clock.Now()
	if q.debug {
		q.logPacket(id, slot, h)
	}
	if qerr := q.Err(); qerr != nil {
		err = hsa.Errorf(hsa.StatusOf(qerr), "queue", "packet %d not run: queue %d failed earlier: %w", id, q.id, qerr)
		discard(slot, h.Type(), err)
	} else if verr := aql.Validate((*aql.Slot)(slot)); verr != nil {
		err = hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "queue", "packet %d of queue %d: %w", id, q.id, verr)
	} else if ferr := q.injected(id, h.Type()); ferr != nil {
		err = ferr
		discard(slot, h.Type(), err)
	} else {
		gt := q.goTraceBegin(slot, h)
		switch h.Type() {
		case aql.TypeKernelDispatch:
			err = q.exec.Dispatch(q, (*aql.KernelDispatch)(slot))
		case aql.TypeAgentDispatch:
			err = q.agentWork((*aql.AgentDispatch)(slot))
		case aql.TypeBarrierAnd:
			err = q.exec.Barrier(q, (*aql.BarrierAnd)(slot), false)
		case aql.TypeBarrierOr:
			err = q.exec.Barrier(q, (*aql.BarrierAnd)(slot), true)
		default:
			err = hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "queue", "packet %d of queue %d: type %s is not supported", id, q.id, h.Type())
		}
		q.goTraceEnd(gt, id, slot, h, start, err)
	}
	if watched && q.strand(id) {
		return false
	}
	q.complete(id, slot, h, start, err)
	return true
}

// complete traces packet id and, unless the executor completes it
// asynchronously, completes its signal with err.
func (q *Queue) complete(id uint64, slot unsafe.Pointer, h aql.Header, start uint64, err error) {
	if t := tracer.Load(); t != nil {
		t.record(q, id, slot, h, start, clock.Now(), err)
	}
	q.timeKernel(slot, h, start)
	if err != nil || !q.async {
		ch := completionOf(slot)
		var sig *Signal
		if ch != 0 {
			var serr error
			if sig, serr = SignalFromHandle(ch); serr != nil && err == nil {
				err = hsa.Errorf(hsa.StatusErrorInvalidSignal, "queue", "packet %d of queue %d: completion signal: %w", id, q.id, serr)
			}
		}
		// The queue's error is set, and its callback has run, before
		// anyone waiting on the failed packet's signal wakes.
		if err != nil && !q.closing.Load() {
			q.fail(err)
		}
		if sig != nil {
			sig.SetTimestamps(start, clock.Now())
			sig.Fail(err)
			sig.Sub(1, hsa.Release)
		}
	}
}

// agentWork decodes an AGENT_DISPATCH packet once and hands it to the
// executor. The decoded work lives in the queue (the executor lock guards
// it), so the launch path does not allocate; it is cleared afterwards so it
// keeps no Go memory alive.
func (q *Queue) agentWork(p *aql.AgentDispatch) error {
	w := q.work.Load()
	if w == nil {
		w = new(spi.AgentWork)
		q.work.Store(w)
	}
	err := decodeWork(w, q.agent, p)
	if err == nil {
		err = q.exec.AgentWork(q, w)
	} else if f, ok := q.exec.(spi.PacketFailer); ok {
		err = f.FailPacket(err)
	}
	*w = spi.AgentWork{}
	return err
}

// WaitBarrier resolves a barrier packet of q on the calling goroutine: for
// AND every non-zero dependency signal reaches 0; for OR one of them does
// (a zero handle never satisfies OR); a dependency whose producer failed
// fails the barrier. It gives up with an error wrapping hsa.ErrInvalidQueue
// once q is being destroyed, so a barrier that never resolves does not
// block Destroy or ShutDown (spi.Host.WaitBarrier waits outside any queue).
func (q *Queue) WaitBarrier(p *aql.BarrierAnd, or bool) error { return waitBarrier(p, or, q) }

// barrierPoll is how often a blocked barrier checks whether its queue is
// being destroyed.
const barrierPoll = 5 * time.Millisecond

func waitBarrier(p *aql.BarrierAnd, or bool, q *Queue) error {
	var sigs [aql.MaxBarrierDeps]*Signal
	n := 0
	for i, h := range p.DepSignal {
		if h == 0 {
			continue
		}
		s, err := SignalFromHandle(h)
		if err != nil {
			return hsa.Errorf(hsa.StatusErrorInvalidSignal, "barrier", "dependency %d: %w", i, err)
		}
		sigs[n] = s
		n++
	}
	var timeout time.Duration // 0: forever
	if q != nil {
		timeout = barrierPoll
	}
	destroyed := func() error {
		if q != nil && q.closing.Load() {
			return hsa.Errorf(hsa.StatusErrorInvalidQueue, "barrier", "queue %d destroyed while the barrier waited", q.id)
		}
		return nil
	}
	if !or {
		for _, s := range sigs[:n] {
			hint := hsa.WaitActive
			for s.Wait(hsa.CondEQ, 0, timeout, hint) != 0 {
				if s.Destroyed() {
					return hsa.Errorf(hsa.StatusErrorInvalidSignal, "barrier", "dependency signal %#x was destroyed while waited on", s.Handle())
				}
				if err := destroyed(); err != nil {
					return err
				}
				hint = hsa.WaitBlocked
			}
			if e := s.Err(); e != nil {
				return hsa.Errorf(hsa.StatusOf(e), "barrier", "dependency failed: %w", e)
			}
		}
		return nil
	}
	if n == 0 {
		return hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "barrier", "BARRIER_OR with no dependency signal can never complete")
	}
	for {
		for _, s := range sigs[:n] {
			if s.Load(hsa.Acquire) == 0 {
				if e := s.Err(); e != nil {
					return hsa.Errorf(hsa.StatusOf(e), "barrier", "dependency failed: %w", e)
				}
				return nil
			}
			if s.Destroyed() {
				return hsa.Errorf(hsa.StatusErrorInvalidSignal, "barrier", "dependency signal %#x was destroyed while waited on", s.Handle())
			}
		}
		if err := destroyed(); err != nil {
			return err
		}
		sigs[0].Wait(hsa.CondEQ, 0, 50*time.Microsecond, hsa.WaitBlocked)
	}
}

// debugEnabled reads HSA_ENABLE_DEBUG when a queue is created, so a
// program (or a test) may turn logging on after its first queue.
func debugEnabled() bool { return os.Getenv("HSA_ENABLE_DEBUG") == "1" }

func (q *Queue) logPacket(id uint64, slot unsafe.Pointer, h aql.Header) {
	line := fmt.Sprintf("hipgo: queue %d (%s) packet %d: %s", q.id, q.agent.info.Name, id, (*aql.Slot)(slot).String())
	if h.Type() == aql.TypeKernelDispatch {
		p := (*aql.KernelDispatch)(slot)
		if n, ok := q.exec.(spi.KernelNamer); ok {
			line += fmt.Sprintf(" kernel=%s", n.KernelName(p.KernelObject))
		}
	}
	rocrhook.DebugLog(line)
}
