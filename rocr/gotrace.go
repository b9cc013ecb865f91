package rocr

import (
	"context"
	"fmt"
	"runtime/trace"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/internal/clock"
	"github.com/hipgo/hipgo/rocr/spi"
)

// While a Go execution trace is recorded (runtime/trace.Start, go test
// -trace), each packet a soft queue's processor runs is a region of the
// processor goroutine named like the packet (the kernel's name, "copy",
// "fill", "host callback", a barrier's type), followed by a log event in
// category "hipgo" with the queue, packet, grid size (work-items) and duration, so
// go tool trace shows device work beside the goroutines that submitted
// it. Nothing of this runs otherwise: one trace.IsEnabled per packet.
// HIPGO_TRACE's Perfetto timeline (trace.go) is separate and unchanged.

// traceCategory is the category of hipgo's log events in Go execution
// traces.
const traceCategory = "hipgo"

// goTraceBegin starts the packet's region; nil when no trace is recorded.
func (q *Queue) goTraceBegin(slot unsafe.Pointer, h aql.Header) *trace.Region {
	if !trace.IsEnabled() {
		return nil
	}
	return trace.StartRegion(context.Background(), q.packetName(slot, h))
}

// goTraceEnd ends the region and logs what the packet was.
func (q *Queue) goTraceEnd(r *trace.Region, id uint64, slot unsafe.Pointer, h aql.Header, start uint64, err error) {
	if r == nil {
		return
	}
	r.End()
	msg := fmt.Sprintf("%s queue=%d packet=%d", q.packetName(slot, h), q.id, id)
	if h.Type() == aql.TypeKernelDispatch {
		p := (*aql.KernelDispatch)(slot)
		msg += fmt.Sprintf(" grid_size=[%d %d %d] workgroup_size=[%d %d %d]", p.GridSizeX, p.GridSizeY, p.GridSizeZ, p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ)
	}
	msg += fmt.Sprintf(" duration=%v", time.Duration(clock.Now()-start))
	if err != nil {
		msg += fmt.Sprintf(" error=%q", err.Error())
	}
	trace.Log(context.Background(), traceCategory, msg)
}

// packetName names a packet as the Perfetto trace does.
func (q *Queue) packetName(slot unsafe.Pointer, h aql.Header) string {
	switch h.Type() {
	case aql.TypeKernelDispatch:
		obj := (*aql.KernelDispatch)(slot).KernelObject
		if n, ok := q.exec.(spi.KernelNamer); ok {
			return n.KernelName(obj)
		}
		return fmt.Sprintf("kernel %#x", obj)
	case aql.TypeAgentDispatch:
		info, _ := aql.Code((*aql.AgentDispatch)(slot).Type)
		return info.Name
	}
	return h.Type().String()
}
