package rocr_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kerneltime"
)

type traceArgs struct{ N int32 }

var traceKernel = kernel.Define("trace_test_kernel", func(g *kernel.Block, a *traceArgs) {})

// TestTraceFile checks HIPGO_TRACE: a Chrome trace with one complete event
// per packet, a flow from the packet that completed a signal to the barrier
// that waited on it, and the dependent kernel starting after its producer.
func TestTraceFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "trace.json")
	t.Setenv("HIPGO_TRACE", file)
	t.Setenv("HIPGO_DRIVER", "cpu")
	kt := kerneltime.Start()
	if err := rocr.Init(); err != nil {
		t.Fatal(err)
	}
	ags, _ := rocr.Agents()
	a := ags[0]
	q1, err := a.CreateQueue(64, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	q2, err := a.CreateQueue(64, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := rocr.NewSignal(1)
	s2, _ := rocr.NewSignal(1)
	s3, _ := rocr.NewSignal(1)
	// q2: a barrier on s1, then a kernel completing s3.
	var b aql.BarrierAnd
	b.DepSignal[0] = s1.Handle()
	b.CompletionSignal = s2.Handle()
	if _, err := q2.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
		t.Fatal(err)
	}
	kernel := func(q *rocr.Queue, sig *rocr.Signal) {
		id, _ := q.Reserve()
		// The body only: the header stays INVALID until Publish, or the
		// processor, woken meanwhile, would run a zero header.
		p := (*aql.KernelDispatch)(q.Slot(id))
		p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = 1, 1, 1
		p.GridSizeX, p.GridSizeY, p.GridSizeZ = 1, 1, 1
		p.KernelObject, p.KernargAddress, p.CompletionSignal = traceKernel.Symbol().Object, uint64(q.Kernarg(id)), sig.Handle()
		q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), 1)
	}
	kernel(q2, s3)
	kernel(q1, s1) // the producer
	s3.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	if err := rocr.ShutDown(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			TS   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			TID  uint64         `json:"tid"`
			ID   uint64         `json:"id"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	// The per-kernel summary, of the running process and of its trace
	// file, counts the same dispatches.
	live := kt.Stop()
	fromFile, err := kerneltime.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range [][]kerneltime.Kernel{live, fromFile} {
		if len(ks) != 1 || ks[0].Name != "trace_test_kernel" || ks[0].Launches != 2 || ks[0].Min > ks[0].Max || ks[0].Total < ks[0].Max {
			t.Errorf("kernel summary %+v, want trace_test_kernel launched twice", ks)
		}
	}
	var kernels, barriers, flowsS, flowsF int
	var prodEnd, consStart float64
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "X" && e.Name == "trace_test_kernel":
			kernels++
			if e.TID == q1.ID() {
				prodEnd = e.TS + e.Dur
			} else {
				consStart = e.TS
			}
			// In work-items, the AQL packet's grid_size, under a name
			// that slog's launch record (grid, in blocks) does not use.
			if g, ok := e.Args["grid_size"].([]any); !ok || len(g) != 3 || g[0] != float64(1) {
				t.Errorf("kernel event without its grid_size in work-items: %+v", e)
			}
			if _, ok := e.Args["grid"]; ok {
				t.Errorf("kernel event names its grid in work-items \"grid\", the launch record's word for blocks: %+v", e)
			}
		case e.Ph == "X" && e.Name == "BARRIER_AND":
			barriers++
		case e.Ph == "s":
			flowsS++
		case e.Ph == "f":
			flowsF++
		}
	}
	if kernels != 2 || barriers != 1 || flowsS != 1 || flowsF != 1 {
		t.Fatalf("kernels %d barriers %d flows %d/%d in %s", kernels, barriers, flowsS, flowsF, raw)
	}
	if consStart < prodEnd {
		t.Fatalf("dependent kernel started at %v before its producer ended at %v", consStart, prodEnd)
	}
}
