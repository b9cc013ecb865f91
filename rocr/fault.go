package rocr

import (
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
)

// FaultOp names the driver-interface call a fault hook is asked about.
type FaultOp uint8

// Operations a fault hook sees: the packet processor asks before it hands
// each packet of a soft queue to the executor.
const (
	FaultDispatch      FaultOp = iota + 1 // KERNEL_DISPATCH
	FaultAgentDispatch                    // AGENT_DISPATCH: copies, fills, host callbacks
	FaultBarrier                          // BARRIER_AND and BARRIER_OR
)

func (op FaultOp) String() string {
	switch op {
	case FaultDispatch:
		return "dispatch"
	case FaultAgentDispatch:
		return "agent dispatch"
	case FaultBarrier:
		return "barrier"
	}
	return fmt.Sprintf("FaultOp(%d)", uint8(op))
}

// FaultHook decides whether the driver call op for packet id of queue q
// fails. A non-nil error fails that packet as if the executor had returned
// it: its completion signal completes with the error, the queue fails
// (later packets are not run), and the stream above reports it.
type FaultHook func(op FaultOp, q *Queue, id uint64) error

var faultHook atomic.Pointer[FaultHook]

// SetFaultHook installs h (nil removes it) and returns the previous hook.
// It is for tests that make a driver call fail midway; with no hook the
// packet processor pays one atomic load per packet. Hardware queues (the
// rocm driver) have no processor and never consult it.
func SetFaultHook(h FaultHook) FaultHook {
	var p *FaultHook
	if h != nil {
		p = &h
	}
	if old := faultHook.Swap(p); old != nil {
		return *old
	}
	return nil
}

// injected asks the fault hook, if one is set, about packet id.
func (q *Queue) injected(id uint64, t aql.PacketType) error {
	p := faultHook.Load()
	if p == nil {
		return nil
	}
	return q.injectedSlow(*p, id, t)
}

func (q *Queue) injectedSlow(h FaultHook, id uint64, t aql.PacketType) error {
	var op FaultOp
	switch t {
	case aql.TypeKernelDispatch:
		op = FaultDispatch
	case aql.TypeAgentDispatch:
		op = FaultAgentDispatch
	case aql.TypeBarrierAnd, aql.TypeBarrierOr:
		op = FaultBarrier
	default:
		return nil
	}
	err := h(op, q, id)
	if err == nil {
		return nil
	}
	return Errorf(StatusOf(err), "queue", "packet %d of queue %d: injected %s fault: %w", id, q.id, op, err)
}

// LiveAllocations is the number of pool allocations not yet freed, across
// every runtime: 0 after the last ShutDown. Tests use it to prove nothing
// leaked.
func LiveAllocations() int {
	return allocs.len()
}

// PinnedHostBuffers is the number of Go slices pinned for copy packets
// (PinHost) and not yet released.
func PinnedHostBuffers() int {
	hostBufs.mu.Lock()
	defer hostBufs.mu.Unlock()
	return len(hostBufs.m)
}

// PendingCallbacks is the number of host callbacks registered for
// AgentCallback packets that have neither run nor been discarded.
func PendingCallbacks() int {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	return len(callbacks.m)
}

// KernelCanceler is implemented by executors whose kernels can be stopped
// cooperatively (the cpu agent's Go kernels poll Group.Canceled): a
// dispatch that runs longer than the timeout fails with ErrTimeout.
type KernelCanceler interface {
	SetKernelTimeout(d time.Duration)
}

// SetKernelTimeout bounds how long each later kernel dispatch of q may run
// (0: no bound). A dispatch past it fails with an error wrapping ErrTimeout
// and the queue fails as for any failed packet. Agents whose kernels cannot
// be stopped return an error wrapping ErrNotSupported.
func (q *Queue) SetKernelTimeout(d time.Duration) error {
	if q == nil {
		return Errorf(StatusErrorInvalidQueue, "kernel timeout", "nil queue")
	}
	if d < 0 {
		return Errorf(StatusErrorInvalidArgument, "kernel timeout", "negative timeout %v", d)
	}
	c, ok := q.exec.(KernelCanceler)
	if !ok {
		return Newf(ErrNotSupported, StatusErrorInvalidArgument, "kernel timeout", "queue %d of %s cannot cancel its kernels", q.id, q.agent)
	}
	c.SetKernelTimeout(d)
	return nil
}

// discard releases what a packet that was never handed to its executor
// holds outside the ring: a host callback's registration, a Go slice
// pinned for a copy. (Their owners may release them again: both are
// idempotent.) Without it a failed or destroyed queue would keep them, and
// the Go memory they reference, alive for ever.
func discard(slot unsafe.Pointer, t aql.PacketType) {
	if t != aql.TypeAgentDispatch {
		return
	}
	p := (*aql.AgentDispatch)(slot)
	switch p.Type {
	case AgentCallback:
		TakeCallback(p.Arg[0])
	case AgentNative:
		TakeNative(p.Arg[0])
	case AgentCopy:
		if p.Arg[3]&CopyDstHost != 0 {
			UnpinHost(p.Arg[0])
		}
		if p.Arg[3]&CopySrcHost != 0 {
			UnpinHost(p.Arg[1])
		}
	}
}
