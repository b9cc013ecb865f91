package rocr

import (
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// hwAgentWork carries the AGENT_DISPATCH packets of a hardware queue, whose
// command processor cannot run them (a GPU's). Each such packet takes two
// slots of the ring:
//
//	slot k:   BARRIER_AND with the barrier bit and completion signal pre:
//	          the CP sets pre to 0 once every earlier packet is done;
//	slot k+1: BARRIER_AND on inner, with the packet's own completion
//	          signal: later packets wait for the work, and the packet's
//	          signal completes in queue order.
//
// The work waits for pre and decrements inner. Copies and fills between
// pool allocations go to the agent's copy engine (Copier) with pre as
// their dependency and inner as their completion, so Submit returns before
// they are done; host work (callbacks, copies from or to Go memory, 2-D
// copies) runs on a goroutine of its own once pre is 0. pre is 0 only
// when every earlier packet is done, earlier host work included, so host
// work runs in queue order whatever order concurrent submitters took.
type hwAgentWork struct {
	q      *Queue
	copier spi.Copier // nil: copies and fills are not supported
	mu     sync.Mutex
	// sigs holds, per slot index of an operation's second packet, that
	// operation's pre and inner signals. A slot is reused only once the
	// CP has passed the packet in it, which waited for inner: the
	// operation is done and its signals may be destroyed.
	sigs [][2]*Signal
	host sync.WaitGroup // host work in flight
}

// hwOp is one agent operation of a hardware queue.
type hwOp struct {
	w          spi.AgentWork
	pre, inner *Signal
	callback   uint64 // the callback's id, for its failure hook
}

// BatchesAgentWork reports whether AGENT_DISPATCH packets may be written
// with ReserveN and PublishN; on a hardware queue only Submit carries them.
func (q *Queue) BatchesAgentWork() bool { return q.exec != nil }

// hwWork returns the queue's agent-work state, made on first use.
func (q *Queue) hwWork() *hwAgentWork {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.hw == nil {
		c, _ := q.agent.drv.(spi.Copier)
		q.hw = &hwAgentWork{q: q, copier: c, sigs: make([][2]*Signal, q.size)}
	}
	return q.hw
}

var hwBarrierHeader = aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)

// submitAgent is Submit of an AGENT_DISPATCH packet to a hardware queue.
// Errors found before the work starts (a packet that does not decode, a
// copy the engine refuses) are returned and nothing completes the packet's
// signal; later failures are recorded on it.
func (q *Queue) submitAgent(pkt unsafe.Pointer) (uint64, error) {
	p := *(*aql.AgentDispatch)(pkt)
	op := &hwOp{}
	if p.Type == aql.AgentCallback {
		op.callback = aql.DecodeCallback(p.Arg).ID
	}
	if err := decodeWork(&op.w, q.agent, &p); err != nil {
		discard(pkt, aql.TypeAgentDispatch, nil) // the caller sees err
		return 0, err
	}
	completion, err := completionSignal(p.CompletionSignal)
	if err != nil {
		return 0, err
	}
	id, err := q.ReserveN(2)
	if err != nil {
		return 0, err
	}
	// Made by a writer of the queue, so never after Destroy released it.
	hw := q.hwWork()
	// The bodies are written around the header words, which stay INVALID
	// until PublishN: the CP must not take a half-written packet.
	var first, second aql.BarrierAnd
	if err := hw.start(id+1, op, completion); err != nil {
		hostref.DiscardCallback(op.callback, nil) // the caller sees err
		// Two packets that wait for nothing and complete nothing keep the
		// ring's order; the caller sees the error.
		q.writeBody(id, unsafe.Pointer(&first))
		q.writeBody(id+1, unsafe.Pointer(&second))
		q.PublishN(id, []uint32{uint32(hwBarrierHeader), uint32(hwBarrierHeader)})
		return 0, err
	}
	first.CompletionSignal = op.pre.Handle()
	second.DepSignal[0] = op.inner.Handle()
	second.CompletionSignal = p.CompletionSignal
	q.writeBody(id, unsafe.Pointer(&first))
	q.writeBody(id+1, unsafe.Pointer(&second))
	q.PublishN(id, []uint32{uint32(hwBarrierHeader), uint32(hwBarrierHeader)})
	return id + 1, nil
}

// writeBody copies bytes 4..63 of a packet into slot id, leaving its
// header word to the publisher.
func (q *Queue) writeBody(id uint64, pkt unsafe.Pointer) {
	*(*[aql.PacketSize - 4]byte)(unsafe.Add(q.Slot(id), 4)) = *(*[aql.PacketSize - 4]byte)(unsafe.Add(pkt, 4))
}

func completionSignal(h uint64) (*Signal, error) {
	if h == 0 {
		return nil, nil
	}
	s, err := SignalFromHandle(h)
	if err != nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, "submit", "completion signal: %w", err)
	}
	return s, nil
}

// start arms the operation's signals, those of the slot index of its
// second packet id, and starts the work. A slot is reused only once the CP
// has passed the packet in it, which waited for inner: the operation that
// used the signals before is done with them (but for the read that may
// follow a decrement), so they are re-armed rather than made anew.
func (hw *hwAgentWork) start(id uint64, op *hwOp, completion *Signal) error {
	i := id & hw.q.mask
	hw.mu.Lock()
	pair := hw.sigs[i]
	hw.mu.Unlock()
	if pair[0] == nil {
		var err error
		if pair[0], err = NewSignalFor(hw.q.agent, 1); err != nil {
			return err
		}
		if pair[1], err = NewSignalFor(hw.q.agent, 1); err != nil {
			_ = pair[0].Destroy()
			return err
		}
		hw.mu.Lock()
		hw.sigs[i] = pair
		hw.mu.Unlock()
	} else {
		pair[0].Store(1, hsa.Relaxed)
		pair[1].Store(1, hsa.Relaxed)
	}
	op.pre, op.inner = pair[0], pair[1]
	// A failure of the work is the packet's.
	op.inner.failTo.Store(completion)
	err := hw.begin(op)
	if err != nil {
		op.inner.Store(0, hsa.Release) // nothing waits for it
	}
	return err
}

// begin starts the work: on the copy engine, or on a goroutine.
func (hw *hwAgentWork) begin(op *hwOp) error {
	w := &op.w
	switch {
	case w.Kind == aql.AgentCopy && w.Size == 0, w.Kind == aql.AgentFill && w.Size == 0:
		op.inner.Sub(1, hsa.Release)
		return nil
	case hw.copier == nil, w.Kind == aql.AgentCopy && (w.Dst.Host != nil || w.Src.Host != nil):
	case w.Kind == aql.AgentCopy:
		return hw.copier.CopyAsync(w.Dst.Addr, w.Src.Addr, w.Size, []spi.Signal{op.pre}, op.inner)
	case w.Kind == aql.AgentFill:
		return hw.copier.FillAsync(w.Dst.Addr, w.Pattern, w.Count, w.ElemSize, []spi.Signal{op.pre}, op.inner)
	case w.Kind == aql.AgentRect && !w.Rect.Fill && w.Rect.DstHost == nil && w.Rect.SrcHost == nil && w.Rect.Width > 0 && w.Rect.Height > 0:
		// One rectangular engine copy where the engine takes it; what it
		// refuses goes row by row on the host path below.
		if rc, ok := hw.copier.(spi.RectCopier); ok {
			if err := rc.CopyRectAsync(w.Rect, []spi.Signal{op.pre}, op.inner); !errors.Is(err, hsa.ErrNotSupported) {
				return err
			}
		}
	}
	hw.host.Add(1)
	go hw.runHost(op)
	return nil
}

// runHost carries out one operation's host work once the packets before
// it are done.
func (hw *hwAgentWork) runHost(op *hwOp) {
	defer hw.host.Done()
	err := hw.waitPre(op.pre)
	if err == nil {
		err = hw.carry(&op.w)
	} else if op.callback != 0 {
		hostref.FailCallback(op.callback, err) // the callback never ran
	}
	op.inner.Fail(err)
	op.w = spi.AgentWork{}
	op.inner.Sub(1, hsa.Release)
}

// waitPre waits for the CP to pass the operation's first packet; it gives
// up once the queue is being destroyed.
func (hw *hwAgentWork) waitPre(pre *Signal) error {
	for pre.Wait(hsa.CondEQ, 0, barrierPoll, hsa.WaitBlocked) != 0 {
		if hw.q.closing.Load() {
			return hsa.Errorf(hsa.StatusErrorInvalidQueue, "agent dispatch", "queue %d destroyed before the work ran", hw.q.id)
		}
	}
	return nil
}

// carry runs one operation on the host and the copy engine, synchronously.
func (hw *hwAgentWork) carry(w *spi.AgentWork) error {
	switch w.Kind {
	case aql.AgentCallback, aql.AgentNative:
		return w.RunHost(0) // no native stream: host work in queue order
	case aql.AgentCopy:
		return hw.copySync(w.Dst, w.Src, w.Size)
	case aql.AgentFill:
		return hw.engine("fill")
	case aql.AgentRect:
		return hw.rect(w.Rect)
	}
	return hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "agent dispatch", "unknown function code %#x", w.Kind)
}

func (hw *hwAgentWork) engine(op string) error {
	if hw.copier == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s has no copy engine: %w", hw.q.agent, hsa.ErrNotSupported)
	}
	return nil
}

// copySync copies n bytes on the copy engine and waits. The engine copies
// only pool memory, so a Go memory end is staged through the agent's
// fine-grained host pool.
func (hw *hwAgentWork) copySync(dst, src spi.CopyEnd, n uint64) error {
	if err := hw.engine("copy"); err != nil {
		return err
	}
	d, s := dst.Addr, src.Addr
	if dst.Host != nil || src.Host != nil {
		p, err := hw.q.agent.Pool(hsa.SegmentGlobal, hsa.FlagFineGrained)
		if err != nil {
			return err
		}
		stage, err := p.Allocate(n)
		if err != nil {
			return err
		}
		defer stage.Free()
		if src.Host != nil {
			copy(hostmem.Bytes(stage.Base, uintptr(n)), src.Host[:n])
			s = stage.Base
		}
		if dst.Host != nil {
			d = stage.Base
		}
	}
	err := hw.wait(func(done *Signal) error { return hw.copier.CopyAsync(d, s, n, nil, done) })
	if err == nil && dst.Host != nil {
		copy(dst.Host[:n], hostmem.Bytes(d, uintptr(n)))
	}
	return err
}

// wait starts one engine operation with a fresh completion signal and
// waits for it.
func (hw *hwAgentWork) wait(start func(done *Signal) error) error {
	done, err := NewSignalFor(hw.q.agent, 1)
	if err != nil {
		return err
	}
	defer done.Destroy()
	if err := start(done); err != nil {
		return err
	}
	done.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	return done.Err()
}

// rect carries a 2-D or 3-D copy or fill (its ranges checked by decode)
// out: a copy between pool memory as one rectangular copy where the
// engine takes it (RectCopier), anything else slice by slice and row by
// row, each row one linear operation.
func (hw *hwAgentWork) rect(r *spi.Rect) error {
	if err := hw.engine("copy 2d"); err != nil {
		return err
	}
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	if rc, ok := hw.copier.(spi.RectCopier); ok && !r.Fill && r.DstHost == nil && r.SrcHost == nil {
		err := hw.wait(func(done *Signal) error { return rc.CopyRectAsync(r, nil, done) })
		if !errors.Is(err, hsa.ErrNotSupported) {
			return err
		}
	}
	for z := uint64(0); z < max(r.Depth, 1); z++ {
		if err := hw.rows(r.Slice(z)); err != nil {
			return err
		}
	}
	return nil
}

// rows carries one slice of a rectangular copy or fill out row by row.
func (hw *hwAgentWork) rows(r *spi.Rect) error {
	for y := uint64(0); y < r.Height; y++ {
		dst := spi.CopyEnd{Addr: uintptr(r.Dst + y*r.DstPitch)}
		if r.DstHost != nil {
			dst = spi.CopyEnd{Host: r.DstHost[y*r.DstPitch : y*r.DstPitch+r.Width]}
		}
		if r.Fill {
			err := hw.wait(func(done *Signal) error {
				return hw.copier.FillAsync(dst.Addr, uint64(r.Value), r.Width, 1, nil, done)
			})
			if err != nil {
				return err
			}
			continue
		}
		src := spi.CopyEnd{Addr: uintptr(r.Src + y*r.SrcPitch)}
		if r.SrcHost != nil {
			src = spi.CopyEnd{Host: r.SrcHost[y*r.SrcPitch : y*r.SrcPitch+r.Width]}
		}
		if err := hw.copySync(dst, src, r.Width); err != nil {
			return err
		}
	}
	return nil
}

// release waits for host work and destroys the signals of finished
// operations, once the hardware queue is gone. Signals of operations that
// never finished stay: an engine may still wait on them.
func (hw *hwAgentWork) release() {
	done := make(chan struct{})
	go func() { hw.host.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(writerGrace):
		return // a host callback that never returns keeps its signals
	}
	hw.mu.Lock()
	defer hw.mu.Unlock()
	for i, pair := range hw.sigs {
		if pair[1] != nil && pair[1].Load(hsa.Acquire) == 0 {
			_ = pair[0].Destroy()
			_ = pair[1].Destroy()
			hw.sigs[i] = [2]*Signal{}
		}
	}
}
