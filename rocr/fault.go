package rocr

import (
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// injected asks the fault hook, if one is set, about packet id.
func (q *Queue) injected(id uint64, t aql.PacketType) error {
	h := rocrhook.Fault()
	if h == nil {
		return nil
	}
	return q.injectedSlow(h, id, t)
}

func (q *Queue) injectedSlow(h rocrhook.FaultHook, id uint64, t aql.PacketType) error {
	var op rocrhook.FaultOp
	switch t {
	case aql.TypeKernelDispatch:
		op = rocrhook.FaultDispatch
	case aql.TypeAgentDispatch:
		op = rocrhook.FaultAgentDispatch
	case aql.TypeBarrierAnd, aql.TypeBarrierOr:
		op = rocrhook.FaultBarrier
	default:
		return nil
	}
	err := h(op, q, id)
	if err == nil {
		return nil
	}
	return hsa.Errorf(hsa.StatusOf(err), "queue", "packet %d of queue %d: injected %s fault: %w", id, q.id, op, err)
}

// SetKernelTimeout bounds how long each later kernel dispatch of q may run
// (0: no bound). A dispatch past it fails with an error wrapping hsa.ErrTimeout
// and the queue fails as for any failed packet. Agents whose kernels cannot
// be stopped return an error wrapping hsa.ErrNotSupported.
func (q *Queue) SetKernelTimeout(d time.Duration) error {
	if q == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidQueue, "kernel timeout", "nil queue")
	}
	if d < 0 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "kernel timeout", "negative timeout %v", d)
	}
	c, ok := q.exec.(spi.KernelCanceler)
	if !ok {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidArgument, "kernel timeout", "queue %d of %s cannot cancel its kernels", q.id, q.agent)
	}
	c.SetKernelTimeout(d)
	return nil
}

// discard releases what a packet that was never handed to its executor
// holds outside the ring: a host callback's registration, a Go slice
// pinned for a copy, a 2-D copy's descriptor. (Their owners may release them again: both are
// idempotent.) Without it a failed or destroyed queue would keep them, and
// the Go memory they reference, alive for ever.
//
// err is why the packet did not run: a failure hook of the callback
// (hostref.RegisterCallbackOr) runs with it; nil drops the hook too.
func discard(slot unsafe.Pointer, t aql.PacketType, err error) {
	if t != aql.TypeAgentDispatch {
		return
	}
	p := (*aql.AgentDispatch)(slot)
	switch p.Type {
	case aql.AgentCallback:
		hostref.DiscardCallback(aql.DecodeCallback(p.Arg).ID, err)
	case aql.AgentNative:
		hostref.TakeNative(aql.DecodeNative(p.Arg).ID)
	case aql.AgentCopy:
		c := aql.DecodeCopy(p.Arg)
		if c.Flags&aql.CopyDstHost != 0 {
			hostref.UnpinHost(c.Dst)
		}
		if c.Flags&aql.CopySrcHost != 0 {
			hostref.UnpinHost(c.Src)
		}
	case aql.AgentRect:
		// The descriptor names the ends; taking it drops them.
		hostref.DiscardRect(aql.DecodeRect(p.Arg).ID)
	}
}
