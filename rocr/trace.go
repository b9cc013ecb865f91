package rocr

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Tracer records every packet every queue processes, for a timeline in the
// Chrome trace event format that Perfetto and chrome://tracing open
// (HIPGO_TRACE=trace.json). Packets that wait on a signal are linked by a
// flow arrow to the packet that completed it. A StartTrace tracer keeps its
// events in memory for WriteTo; HIPGO_TRACE's streams them to its file.
type Tracer struct {
	mu     sync.Mutex
	events []traceEvent
	// stream, when set, receives each event as it is recorded instead of
	// events (HIPGO_TRACE): a long run's trace costs no memory.
	stream    *bufio.Writer
	file      *os.File
	streamed  int // events written so far
	streamErr error
	names     map[[2]uint64]string // (pid, tid) → name
	pids      map[string]uint64
	last      map[uint64]flowEnd // completion signal → the packet that last completed it
	nextID    uint64
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
	t := newTracer()
	tracer.Store(t)
	return t
}

func newTracer() *Tracer {
	return &Tracer{names: map[[2]uint64]string{}, pids: map[string]uint64{}, last: map[uint64]flowEnd{}}
}

// StopTrace stops recording and returns the tracer that was active.
func StopTrace() *Tracer { return tracer.Swap(nil) }

// traceEnvFile is HIPGO_TRACE's file, if tracing was started from it.
var traceEnvFile string

// traceFromEnv starts a trace streamed to HIPGO_TRACE's file.
func traceFromEnv() error {
	name := os.Getenv("HIPGO_TRACE")
	if name == "" {
		return nil
	}
	f, err := os.Create(name)
	if err != nil {
		return hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "HIPGO_TRACE: %w", err)
	}
	t := newTracer()
	t.file, t.stream = f, bufio.NewWriterSize(f, 64<<10)
	if _, err := t.stream.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`); err != nil {
		_ = f.Close()
		return hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "write %s: %w", name, err)
	}
	traceEnvFile = name
	tracer.Store(t)
	return nil
}

// traceFlush ends HIPGO_TRACE's trace: the names of agents and queues, the
// closing brackets, and the file closed.
func traceFlush() error {
	if traceEnvFile == "" {
		return nil
	}
	t := StopTrace()
	name := traceEnvFile
	traceEnvFile = ""
	if t == nil || t.stream == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, ev := range t.metadata() {
		t.emit(ev)
	}
	if t.streamErr == nil {
		_, t.streamErr = t.stream.WriteString("\n]}\n")
	}
	if t.streamErr == nil {
		t.streamErr = t.stream.Flush()
	}
	err := errors.Join(t.streamErr, t.file.Close())
	if err != nil {
		return hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "write %s: %w", name, err)
	}
	return nil
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
		if n, ok := q.exec.(spi.KernelNamer); ok {
			ev.Name = n.KernelName(p.KernelObject)
		}
		ev.Args["grid_size"] = [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
		ev.Args["workgroup_size"] = [3]uint16{p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ}
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
		info, _ := aql.Code(p.Type)
		ev.Name = info.Name
		if n := info.Bytes(p.Arg); n > 0 {
			ev.Args["bytes"] = n
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
			t.emit(traceEvent{Name: "dependency", Cat: "flow", Ph: "s", TS: from.ts, PID: from.pid, TID: from.tid, ID: t.nextID})
			t.emit(traceEvent{Name: "dependency", Cat: "flow", Ph: "f", BP: "e", TS: ev.TS, PID: pid, TID: q.id, ID: t.nextID})
		}
	}
	if completion != 0 {
		t.last[completion] = flowEnd{pid, q.id, us(end)}
	}
	t.emit(ev)
}

// emit keeps an event, or writes it to the stream; t.mu is held. The first
// write error stops the stream and is reported by ShutDown.
func (t *Tracer) emit(ev traceEvent) {
	if t.stream == nil {
		t.events = append(t.events, ev)
		return
	}
	if t.streamErr != nil {
		return
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.streamErr = err
		return
	}
	sep := ",\n"
	if t.streamed == 0 {
		sep = "\n"
	}
	t.streamed++
	if _, err := t.stream.WriteString(sep); err != nil {
		t.streamErr = err
		return
	}
	if _, err := t.stream.Write(b); err != nil {
		t.streamErr = err
	}
}

// metadata names the agents (processes) and queues (threads); t.mu is held.
func (t *Tracer) metadata() []traceEvent {
	var evs []traceEvent
	for name, pid := range t.pids {
		evs = append(evs, traceEvent{Name: "process_name", Ph: "M", PID: pid, Args: map[string]any{"name": "agent " + name}})
	}
	for k, name := range t.names {
		evs = append(evs, traceEvent{Name: "thread_name", Ph: "M", PID: k[0], TID: k[1], Args: map[string]any{"name": name}})
	}
	return evs
}

// WriteTo writes the trace as Chrome trace event JSON.
func (t *Tracer) WriteTo(w io.Writer) (int64, error) {
	t.mu.Lock()
	evs := append(append([]traceEvent(nil), t.events...), t.metadata()...)
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
		return hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "%w", err)
	}
	if _, err := t.WriteTo(f); err != nil {
		f.Close()
		return hsa.Errorf(hsa.StatusErrorInvalidFile, "trace", "write %s: %w", name, err)
	}
	return f.Close()
}
