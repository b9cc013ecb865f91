package cpu_test

import (
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type addArgs struct {
	A, B, C rocr.Ptr[float32]
	N       int32
}

var vadd = kernel.Define("test_vector_add", func(g *kernel.Block, a *addArgs) {
	lo, hi := g.Span(0, int(a.N))
	A, B, C := a.A.Slice(g, lo, hi), a.B.Slice(g, lo, hi), a.C.Slice(g, lo, hi)
	for i := range C {
		C[i] = A[i] + B[i]
	}
})

func setup(t testing.TB) *rocr.Agent { return cputest.Agent(t) }

func alloc(t testing.TB, a *rocr.Agent, flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
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

func f32(al *rocr.Allocation, n int) []float32 {
	return unsafe.Slice((*float32)(hostmem.At(al.Base)), n)
}

func dispatch(t testing.TB, q *rocr.Queue, k *kernel.Kernel, args unsafe.Pointer, size uintptr, grid, block uint32, sig *rocr.Signal) {
	id, err := q.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	ka := q.Kernarg(id)
	copy(hostmem.Bytes(ka, size), unsafe.Slice((*byte)(args), size))
	p := (*aql.KernelDispatch)(q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = uint16(block), 1, 1
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = grid, 1, 1
	p.KernelObject = k.Symbol().Object
	p.KernargAddress = uint64(ka)
	p.GroupSegmentSize, p.PrivateSegmentSize = 0, 0
	p.CompletionSignal = 0
	if sig != nil {
		p.CompletionSignal = sig.Handle()
	}
	q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), 1)
}

func TestVectorAddThroughQueue(t *testing.T) {
	ag := setup(t)
	const n = 1000
	a, b, c := alloc(t, ag, hsa.FlagCoarseGrained, 4*n), alloc(t, ag, hsa.FlagCoarseGrained, 4*n), alloc(t, ag, hsa.FlagCoarseGrained, 4*n)
	A, B, C := f32(a, n), f32(b, n), f32(c, n)
	for i := range A {
		A[i], B[i] = float32(i), float32(2*i)
	}
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := rocr.NewSignal(1)
	args := addArgs{rocr.Ptr[float32](a.Base), rocr.Ptr[float32](b.Base), rocr.Ptr[float32](c.Base), n}
	dispatch(t, q, vadd, unsafe.Pointer(&args), unsafe.Sizeof(args), 1024, 64, sig)
	if v, ok := sig.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked); !ok {
		t.Fatalf("signal %d", v)
	}
	for i := range C {
		if C[i] != float32(3*i) {
			t.Fatalf("C[%d]=%v", i, C[i])
		}
	}
	if err := sig.Err(); err != nil {
		t.Fatal(err)
	}
	// Out of bounds: n larger than the allocation fails the dispatch, not the process.
	args.N = 2 * n
	sig.Store(1, hsa.Release)
	dispatch(t, q, vadd, unsafe.Pointer(&args), unsafe.Sizeof(args), 2048, 64, sig)
	sig.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	if err := sig.Err(); err == nil {
		t.Fatal("out-of-bounds dispatch succeeded")
	} else {
		t.Log(err)
	}
	if q.Err() == nil {
		t.Fatal("queue not failed")
	}
	if err := q.Destroy(); err != nil {
		t.Fatal(err)
	}
	// Another agent's memory: ErrNotOwner.
	_ = errors.Is
}
