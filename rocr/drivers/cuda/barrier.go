package cuda

import (
	"runtime"
	"time"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// awaitIssue waits on the host until the queue named by dependency s's
// completer has queued the work that completes s, or s completed. It gives
// up when this queue is destroyed.
func (e *executor) awaitIssue(s spi.HostSignal, i int) (spi.Completer, uint64, error) {
	for n := 0; ; n++ {
		c, seq := s.Deferred()
		if c == nil || seq != 0 || s.Load(hsa.Acquire) <= 0 {
			return c, seq, nil
		}
		if e.queue.Destroyed() {
			return nil, 0, hsa.Errorf(hsa.StatusErrorInvalidQueue, "barrier", "queue %d destroyed while dependency %d waited to be submitted", e.queue.ID(), i)
		}
		if n < 1000 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// waitEvent makes b's stream wait for e's work up to completion seq with
// CUDA's own event (cuEventRecord on e, cuStreamWaitEvent on b), the
// fastest cross-stream edge the driver has. One event serves every
// waiter: a wait binds to the record current at the call, and a later
// record only covers more. It reports false when e has no event.
// Waiting instead on the progress word that an event record writes
// anyway (one cuStreamWaitValue64, not two calls) gained nothing on the
// H200 (benchmarks/results/h200-20261203b): that call costs the host
// more than both of these.
func (e *executor) waitEvent(b *executor, seq uint64) (bool, error) {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	if e.event == 0 || e.stream == 0 {
		return false, nil
	}
	if ok, err := e.waitRecord(b, seq); ok || err != nil {
		return ok, err
	}
	if e.evSeq < seq {
		v := e.issued.Load()
		if v < seq {
			return false, nil
		}
		if r := b.sa.call(e.api.cuEventRecord, e.event, e.stream); r != cudaSuccess {
			return false, cuErr("barrier", "cuEventRecord", r)
		}
		e.evSeq = v
	}
	if r := b.sa.call(e.api.cuStreamWaitEvent, b.stream, e.event, 0); r != cudaSuccess {
		return false, cuErr("barrier", "cuStreamWaitEvent", r)
	}
	return true, nil
}

// waitRecord makes b's stream wait for the event record at seq with that
// record's own event: one cuStreamWaitEvent, as a native program waits for
// its cudaEvent. It reports false when seq is not a record in flight with
// an event. The lock keeps the record's slot, so its event is not
// recorded again before the wait binds to it. The caller holds flushMu.
func (e *executor) waitRecord(b *executor, seq uint64) (bool, error) {
	if seq == 0 {
		return false, nil
	}
	e.lazyMu.Lock()
	defer e.lazyMu.Unlock()
	if d := &e.ring[(seq-1)%uint64(len(e.ring))]; d.seq != seq || d.ev == 0 {
		return false, nil
	}
	if r := b.sa.call(e.api.cuStreamWaitEvent, b.stream, e.ring[(seq-1)%uint64(len(e.ring))].ev, 0); r != cudaSuccess {
		return false, cuErr("barrier", "cuStreamWaitEvent", r)
	}
	return true, nil
}

// Barrier resolves BARRIER_AND on the GPU: the stream waits until each
// dependency's value in signal memory is 0. BARRIER_OR, and dependencies a
// GPU cannot see, are waited for here on the host.
func (e *executor) Barrier(q spi.Queue, p *aql.BarrierAnd, or bool) error {
	if or || !e.memops {
		if err := host.WaitBarrier(p, or); err != nil {
			return e.fail(err)
		}
	} else {
		for i, h := range p.DepSignal {
			if h == 0 {
				continue
			}
			s, err := e.signal(h)
			if err != nil {
				return e.fail(hsa.Errorf(hsa.StatusErrorInvalidSignal, "barrier", "dependency %d: %w", i, err))
			}
			c, seq := s.Deferred()
			if c != nil && c != spi.Completer(e) && seq == 0 {
				// Its queue has not queued the work yet: wait until it has
				// (or the signal completed some other way).
				if c, seq, err = e.awaitIssue(s, i); err != nil {
					return e.fail(err)
				}
				if seq == 0 {
					c = nil // completed without being queued (its packet failed)
				}
			}
			if c != nil {
				if c == spi.Completer(e) {
					continue // an earlier packet of this stream: in order already
				}
				if o, ok := c.(*executor); ok && o.memops && o.progDev != 0 {
					if e.waitedOn == o && e.waitedSeq >= seq {
						continue
					}
					e.ctx()
					if o.dev.ctx == e.dev.ctx {
						ok, err := o.waitEvent(e, seq)
						if err != nil {
							return e.fail(err)
						}
						if ok {
							e.waitedOn, e.waitedSeq = o, seq
							e.prove(o, seq)
							continue
						}
					}
					// The other queue's progress word (in portable pinned
					// memory, so another device's too): one GPU wait, no
					// host round trip.
					o.flushProgress(seq, e.dev.ctx)
					if o.dev.ctx != e.dev.ctx {
						e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx) // the flush made o's current
					}
					if r := e.sa.call(e.api.cuStreamWaitValue64, e.stream, o.progDev, uintptr(seq), streamWaitValueGEQ); r != cudaSuccess {
						return e.fail(cuErr("barrier", "cuStreamWaitValue64", r))
					}
					e.waitedOn, e.waitedSeq = o, seq
					e.prove(o, seq)
					continue
				}
				e.ctx()
				if o, ok := c.(*executor); ok {
					o.flushOn(seq, e.dev.ctx)
					if o.dev.ctx != e.dev.ctx {
						e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx) // the flush made o's current
					}
				} else {
					c.Flush(seq) // another agent's queue: no CUDA context of its own
				}
			}
			if s.Load(hsa.Acquire) == 0 {
				// Already satisfied: its producer's failure, if any, is known.
				if ferr := s.Err(); ferr != nil {
					return e.fail(hsa.Errorf(hsa.StatusOf(ferr), "barrier", "dependency failed: %w", ferr))
				}
				continue
			}
			dev := devAddr(s.Addr())
			if dev == 0 {
				var one aql.BarrierAnd
				one.DepSignal[0] = h
				if err := host.WaitBarrier(&one, false); err != nil {
					return e.fail(err)
				}
				continue
			}
			e.ctx()
			if r := e.sa.call(e.api.cuStreamWaitValue64, e.stream, dev, 0, streamWaitValueEQ); r != cudaSuccess {
				return e.fail(cuErr("barrier", "cuStreamWaitValue64", r))
			}
		}
	}
	if h := p.CompletionSignal; h != 0 {
		// A barrier with a completion signal is an event record: it always
		// carries the GPU time at which it passed.
		if s, err := e.signal(h); err == nil && s.Addr() != 0 && s.WantsTimestamps() {
			e.ctx()
			if err := e.stamp(s.Addr()+24, s.Addr()+32); err != nil {
				return e.fail(err)
			}
		}
	}
	record := p.CompletionSignal != 0 && isRecord(p)
	if record {
		e.ctx()
	}
	evented, err := e.complete(p.CompletionSignal, record)
	if err != nil || !record || evented {
		// A barrier with dependencies (a stream's wait for an event) is
		// observed by a Synchronize of its stream, which awaits the
		// stream or flushes itself: no progress write is needed here. A
		// record with an event of its own is observed through it.
		return err
	}
	// An event record is there to be waited for or queried: with no event
	// of its own, its progress write goes in now, so a waiter sees it
	// complete when the GPU passes it, not at the end of the work queued
	// after it (where a waiter's own flush would land), which would leave
	// the GPU idle until the host queued more.
	e.flushHere(e.issued.Load())
	return nil
}

// prove notes that the stream now waits on the GPU for o's work up to
// completion seq: once this stream's next completion is done, so is that
// work (completeTo). It runs under the executor lock, which numbers the
// completions, so e.seq is the last one queued before the wait. One proof
// is kept, the newest: an older one still pending is dropped, and its
// signals settle as they would without it.
func (e *executor) prove(o *executor, seq uint64) {
	e.lazyMu.Lock()
	e.proofOn, e.proofSeq, e.proofAt = o, seq, e.seq
	e.lazyMu.Unlock()
}

// isRecord reports a barrier with no dependency: an event record, whose
// completion signal is there to be observed.
func isRecord(p *aql.BarrierAnd) bool {
	for _, h := range p.DepSignal {
		if h != 0 {
			return false
		}
	}
	return true
}
