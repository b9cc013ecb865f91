package rocr

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
)

// Tracer records every packet every queue processes, for a timeline in the
// Chrome trace event format that Perfetto and chrome://tracing open
// (HIPGO_TRACE=trace.json). Packets that wait on a signal are linked by a
// flow arrow to the packet that completed it.
type Tracer struct {
	mu     sync.Mutex
	events []traceEvent
	names  map[[2]uint64]string // (pid, tid) → name
	pids   map[string]uint64
	last   map[uint64]flowEnd // completion signal → the packet that last completed it
	nextID uint64
}

type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	PID  uint64         `json:"pid"`
	TID  uint64         `json:"tid"`
	ID   uint64         `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

type flowEnd struct {
	pid, tid uint64
	ts       float64
}

var tracer atomic.Pointer[Tracer]

// StartTrace begins recording into a new Tracer, which it returns; packets
// processed from now on are recorded until StopTrace.
func StartTrace() *Tracer {
	t := &Tracer{names: map[[2]uint64]string{}, pids: map[string]uint64{}, last: map[uint64]flowEnd{}}
	tracer.Store(t)
	return t
}

// StopTrace stops recording and returns the tracer that was active.
func StopTrace() *Tracer { return tracer.Swap(nil) }

// traceEnvFile is HIPGO_TRACE's file, if tracing was started from it.
var traceEnvFile string

func traceFromEnv() {
	if f := os.Getenv("HIPGO_TRACE"); f != "" {
		traceEnvFile = f
		StartTrace()
	}
}

func traceFlush() error {
	if traceEnvFile == "" {
		return nil
	}
	t := StopTrace()
	f := traceEnvFile
	traceEnvFile = ""
	if t == nil {
		return nil
	}
	return t.WriteFile(f)
}

func us(ns uint64) float64 { return float64(ns) / 1e3 }

// record is called by the packet processor after a packet completed.
func (t *Tracer) record(q *Queue, id uint64, slot unsafe.Pointer, h aql.Header, start, end uint64, err error) {
	ev := traceEvent{Ph: "X", TS: us(start), TID: q.id, Args: map[string]any{"packet": id, "queue": q.id}}
	d := us(end) - us(start)
	ev.Dur = &d
	var deps []uint64
	var completion uint64
	switch h.Type() {
	case aql.TypeKernelDispatch:
		p := (*aql.KernelDispatch)(slot)
		ev.Cat = "kernel"
		ev.Name = fmt.Sprintf("%#x", p.KernelObject)
		if n, ok := q.exec.(KernelNamer); ok {
			ev.Name = n.KernelName(p.KernelObject)
		}
		ev.Args["grid"] = [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
		ev.Args["block"] = [3]uint16{p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ}
		ev.Args["group_segment"] = p.GroupSegmentSize
		completion = p.CompletionSignal
	case aql.TypeBarrierAnd, aql.TypeBarrierOr:
		p := (*aql.BarrierAnd)(slot)
		ev.Cat = "barrier"
		ev.Name = h.Type().String()
		for _, s := range p.DepSignal {
			if s != 0 {
				deps = append(deps, s)
			}
		}
		ev.Args["deps"] = len(deps)
		completion = p.CompletionSignal
	case aql.TypeAgentDispatch:
		p := (*aql.AgentDispatch)(slot)
		ev.Cat = "agent"
		switch p.Type {
		case AgentCopy:
			ev.Name = "copy"
			ev.Args["bytes"] = p.Arg[2]
		case AgentFill:
			ev.Name = "fill"
			ev.Args["bytes"] = p.Arg[2] * p.Arg[3]
		case AgentCallback:
			ev.Name = "host callback"
		case AgentNative:
			ev.Name = "native call"
		default:
			ev.Name = fmt.Sprintf("agent dispatch %#x", p.Type)
		}
		completion = p.CompletionSignal
	default:
		ev.Name = h.Type().String()
	}
	if err != nil {
		ev.Args["error"] = err.Error()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	pid, ok := t.pids[q.agent.info.Name]
	if !ok {
		pid = uint64(len(t.pids))
		t.pids[q.agent.info.Name] = pid
	}
	ev.PID = pid
	if _, ok := t.names[[2]uint64{pid, q.id}]; !ok {
		t.names[[2]uint64{pid, q.id}] = fmt.Sprintf("queue %d", q.id)
	}
	for _, dsig := range deps {
		if from, ok := t.last[dsig]; ok {
			t.nextID++
			t.events = append(t.events,
				traceEvent{Name: "dependency", Cat: "flow", Ph: "s", TS: from.ts, PID: from.pid, TID: from.tid, ID: t.nextID},
				traceEvent{Name: "dependency", Cat: "flow", Ph: "f", BP: "e", TS: ev.TS, PID: pid, TID: q.id, ID: t.nextID})
		}
	}
	if completion != 0 {
		t.last[completion] = flowEnd{pid, q.id, us(end)}
	}
	t.events = append(t.events, ev)
}

// WriteTo writes the trace as Chrome trace event JSON.
func (t *Tracer) WriteTo(w io.Writer) (int64, error) {
	t.mu.Lock()
	evs := append([]traceEvent(nil), t.events...)
	for name, pid := range t.pids {
		evs = append(evs, traceEvent{Name: "process_name", Ph: "M", PID: pid, Args: map[string]any{"name": "agent " + name}})
	}
	for k, name := range t.names {
		evs = append(evs, traceEvent{Name: "thread_name", Ph: "M", PID: k[0], TID: k[1], Args: map[string]any{"name": name}})
	}
	t.mu.Unlock()
	b, err := json.Marshal(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{evs, "ns"})
	if err != nil {
		return 0, err
	}
	n, err := w.Write(b)
	return int64(n), err
}

// WriteFile writes the trace to a file.
func (t *Tracer) WriteFile(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return Errorf(StatusErrorInvalidFile, "trace", "%w", err)
	}
	if _, err := t.WriteTo(f); err != nil {
		f.Close()
		return Errorf(StatusErrorInvalidFile, "trace", "write %s: %w", name, err)
	}
	return f.Close()
}
