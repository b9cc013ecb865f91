package rocr_test

import (
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// TestMain checks that no goroutine outlives the tests: every queue
// processor and worker stops at ShutDown.
func TestMain(m *testing.M) { testenv.Main(m, testenv.Unsetenv("HSA_ENABLE_DEBUG")) }

// scale shrinks stress sizes under the race detector, which is ~10x slower.
func scale(n int) int {
	if raceflag.Enabled {
		return max(1, n/10)
	}
	return n
}

func newQueue(t testing.TB, a *rocr.Agent, size uint32, onError func(*rocr.Queue, error)) *rocr.Queue {
	t.Helper()
	q, err := a.CreateQueue(size, hsa.QueueMulti, onError)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !q.Destroyed() {
			if err := q.Destroy(); err != nil {
				t.Error(err)
			}
		}
	})
	return q
}

func newSignal(t testing.TB, v int64) *rocr.Signal {
	t.Helper()
	s, err := rocr.NewSignal(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !s.Destroyed() {
			_ = s.Destroy()
		}
	})
	return s
}

func allocate(t testing.TB, a *rocr.Agent, flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
	t.Helper()
	p, err := a.Pool(hsa.SegmentGlobal, flags)
	if err != nil {
		t.Fatal(err)
	}
	al, err := p.Allocate(n)
	if err != nil {
		t.Fatal(err)
	}
	return al
}

// launch writes a 1-dimensional kernel dispatch of k with the argument
// struct args into q, in the HSA protocol order.
func launch[A any](t testing.TB, q *rocr.Queue, k *kernel.Kernel, args *A, grid, block uint32, sig *rocr.Signal) uint64 {
	t.Helper()
	id, err := q.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	writeDispatch(q, id, k, args, grid, block, sig)
	return id
}

func writeDispatch[A any](q *rocr.Queue, id uint64, k *kernel.Kernel, args *A, grid, block uint32, sig *rocr.Signal) {
	ka := q.Kernarg(id)
	size := unsafe.Sizeof(*args)
	if size > 0 {
		copy(hostmem.Bytes(ka, size), unsafe.Slice((*byte)(unsafe.Pointer(args)), size))
	}
	p := (*aql.KernelDispatch)(q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = uint16(block), 1, 1
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = grid, 1, 1
	p.PrivateSegmentSize, p.GroupSegmentSize = 0, 0
	p.KernelObject = k.Symbol().Object
	p.KernargAddress = uint64(ka)
	p.CompletionSignal = 0
	if sig != nil {
		p.CompletionSignal = sig.Handle()
	}
	q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), 1)
}

// barrier submits a BARRIER_AND or BARRIER_OR packet.
func barrier(t testing.TB, q *rocr.Queue, typ aql.PacketType, deps [5]*rocr.Signal, sig *rocr.Signal) {
	t.Helper()
	var p aql.BarrierAnd
	for i, d := range deps {
		if d != nil {
			p.DepSignal[i] = d.Handle()
		}
	}
	if sig != nil {
		p.CompletionSignal = sig.Handle()
	}
	if _, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(typ, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
		t.Fatal(err)
	}
}

// wait waits for sig to reach 0 and fails the test after d.
func wait(t testing.TB, sig *rocr.Signal, d time.Duration) {
	t.Helper()
	if v, ok := sig.WaitTimed(hsa.CondEQ, 0, d, hsa.WaitBlocked); !ok {
		t.Fatalf("signal still %d after %v", v, d)
	}
}

// Test kernels.

type tagArgs struct{ Tag uint64 }

// tagLog records the tags kernelTag ran with, in the order they ran.
var tagLog struct {
	sync.Mutex
	tags []uint64
}

var kernelTag = kernel.Define("rocr_test_tag", func(g *kernel.Block, a *tagArgs) {
	tagLog.Lock()
	tagLog.tags = append(tagLog.tags, a.Tag)
	tagLog.Unlock()
})

func takeTags() []uint64 {
	tagLog.Lock()
	defer tagLog.Unlock()
	out := tagLog.tags
	tagLog.tags = nil
	return out
}

// counts[tag] counts how often kernelCount ran with tag.
var counts []int32
var countsMu sync.Mutex

var kernelCount = kernel.Define("rocr_test_count", func(g *kernel.Block, a *tagArgs) {
	countsMu.Lock()
	counts[a.Tag]++
	countsMu.Unlock()
})

// gates[tag] is closed to let kernelGate return; started[tag] is closed
// when it starts.
var gates, started sync.Map

func gate(tag uint64) (release func(), running <-chan struct{}) {
	g, s := make(chan struct{}), make(chan struct{})
	gates.Store(tag, g)
	started.Store(tag, s)
	var once sync.Once
	return func() { once.Do(func() { close(g) }) }, s
}

var kernelGate = kernel.Define("rocr_test_gate", func(g *kernel.Block, a *tagArgs) {
	if s, ok := started.Load(a.Tag); ok {
		close(s.(chan struct{}))
	}
	if c, ok := gates.Load(a.Tag); ok {
		<-c.(chan struct{})
	}
})

type panicArgs struct{ Group int32 }

var kernelPanic = kernel.Define("rocr_test_panic", func(g *kernel.Block, a *panicArgs) {
	if g.BlockIdx().X == int(a.Group) {
		panic("boom")
	}
})

type fillArgs struct {
	P rocr.Ptr[uint32]
	N int32
	V uint32
}

var kernelFill = kernel.Define("rocr_test_fill", func(g *kernel.Block, a *fillArgs) {
	lo, hi := g.Span(0, int(a.N))
	for i, p := 0, a.P.Slice(g, lo, hi); i < len(p); i++ {
		p[i] = a.V
	}
})
