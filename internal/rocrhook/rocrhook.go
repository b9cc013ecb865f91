package rocrhook

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/hipgo/hipgo/internal/hostref"
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
// (a *rocr.Queue) fails. A non-nil error fails that packet as if the
// executor had returned it: its completion signal completes with the
// error, the queue fails (later packets are not run), and the stream above
// reports it.
type FaultHook func(op FaultOp, q any, id uint64) error

var faultHook atomic.Pointer[FaultHook]

// SetFaultHook installs h (nil removes it) and returns the previous hook.
// Hardware queues (the rocm driver) have no processor and never consult it.
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

// Fault returns the fault hook, nil when none is set.
func Fault() FaultHook {
	if p := faultHook.Load(); p != nil {
		return *p
	}
	return nil
}

var allocations atomic.Pointer[func() int]

// CountAllocationsWith makes f the counter LiveAllocations reports; rocr
// installs it when it is initialized.
func CountAllocationsWith(f func() int) { allocations.Store(&f) }

// LiveAllocations is the number of pool allocations not yet freed, across
// every runtime: 0 after the last ShutDown.
func LiveAllocations() int {
	if p := allocations.Load(); p != nil {
		return (*p)()
	}
	return 0
}

// PinnedHostBuffers is the number of Go slices pinned for copy packets and
// not yet released.
func PinnedHostBuffers() int { return hostref.PinnedHostBuffers() }

// PendingCallbacks is the number of host callbacks registered for
// aql.AgentCallback packets that have neither run nor been discarded.
func PendingCallbacks() int { return hostref.PendingCallbacks() }

var debugLog atomic.Pointer[func(string)]

// SetDebugLog makes f receive HSA_ENABLE_DEBUG's lines (nil: standard
// error again) and returns the previous receiver.
func SetDebugLog(f func(line string)) (prev func(line string)) {
	var p *func(string)
	if f != nil {
		p = &f
	}
	if old := debugLog.Swap(p); old != nil {
		return *old
	}
	return nil
}

// DebugLog writes one HSA_ENABLE_DEBUG line.
func DebugLog(line string) {
	if p := debugLog.Load(); p != nil {
		(*p)(line)
		return
	}
	fmt.Fprintln(os.Stderr, line)
}
