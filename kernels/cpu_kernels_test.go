package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// cpuEnv is the cpu agent with the kernel set loaded and one queue.
type cpuEnv struct {
	t   testing.TB
	ag  *rocr.Agent
	q   *rocr.Queue
	exe spi.Executable
}

func newCPUEnv(t testing.TB) *cpuEnv {
	e := &cpuEnv{t: t, ag: cputest.Agent(t)}
	var err error
	if e.exe, err = e.ag.Load(CPUSet().Code()); err != nil {
		t.Fatal(err)
	}
	if e.q, err = e.ag.CreateQueue(64, hsa.QueueMulti, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.q.Destroy(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// buf is a coarse-grained allocation of n float32 owned by the agent, and
// its memory as a Go slice.
func (e *cpuEnv) buf(n int) (rocr.Ptr[float32], []float32) {
	e.t.Helper()
	p, err := e.ag.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	if err != nil {
		e.t.Fatal(err)
	}
	al, err := p.Allocate(uint64(4 * n))
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = al.Free() })
	cpu.MarkWritten(al.Base, al.Size) // the tests fill it through the slice
	return rocr.Ptr[float32](al.Base), unsafe.Slice((*float32)(hostmem.At(al.Base)), n)
}

// cpuLaunch is a HIP launch: grid in work-groups, block in work-items,
// dynamic group memory in bytes on top of the kernel's static group memory.
type cpuLaunch struct {
	grid, block [3]uint32
	dynShared   uint32
	// items, when set, is the AQL grid in work-items, which HSA (not HIP)
	// lets end in a partial work-group.
	items [3]uint32
}

func cpuLaunch1D(groups, block uint32) cpuLaunch {
	return cpuLaunch{grid: [3]uint32{groups, 1, 1}, block: [3]uint32{block, 1, 1}}
}

// cpuDispatch submits one kernel dispatch through the queue, completing sig;
// cpuRun also waits for it and returns its error.
func cpuDispatch[A any](e *cpuEnv, name string, args *A, l cpuLaunch, sig *rocr.Signal) {
	e.t.Helper()
	e.dispatchRaw(name, unsafe.Pointer(args), unsafe.Sizeof(*args), l, sig)
}

// dispatchRaw is cpuDispatch's body, with the size as a variable: go1.26.8
// crashes (internal compiler error in ssa.disjointTypes) on a copy of a
// constant size into memory addressed through hostmem.At, which the generic
// body with unsafe.Sizeof(*args) would be.
func (e *cpuEnv) dispatchRaw(name string, args unsafe.Pointer, size uintptr, l cpuLaunch, sig *rocr.Signal) {
	e.t.Helper()
	sym, err := rocr.FindKernel(e.exe, name)
	if err != nil {
		e.t.Fatal(err)
	}
	if uintptr(sym.KernargSize) != size {
		e.t.Fatalf("%s: kernarg size %d, args %d bytes", name, sym.KernargSize, size)
	}
	id, err := e.q.Reserve()
	if err != nil {
		e.t.Fatal(err)
	}
	ka := e.q.Kernarg(id)
	if size > 0 {
		copy(hostmem.Bytes(ka, size), unsafe.Slice((*byte)(args), size))
	}
	dims := uint16(1)
	if l.block[1] > 1 || l.grid[1] > 1 {
		dims = 2
	}
	if l.block[2] > 1 || l.grid[2] > 1 {
		dims = 3
	}
	p := (*aql.KernelDispatch)(e.q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = uint16(l.block[0]), uint16(l.block[1]), uint16(l.block[2])
	// AQL grids count work-items; HIP's count work-groups.
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = l.grid[0]*l.block[0], l.grid[1]*l.block[1], l.grid[2]*l.block[2]
	if l.items != [3]uint32{} {
		p.GridSizeX, p.GridSizeY, p.GridSizeZ = l.items[0], l.items[1], l.items[2]
	}
	p.KernelObject = sym.Object
	p.KernargAddress = uint64(ka)
	p.GroupSegmentSize, p.PrivateSegmentSize = sym.GroupSegmentSize+l.dynShared, 0
	p.CompletionSignal = sig.Handle()
	e.q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), dims)
}

func cpuRun[A any](e *cpuEnv, name string, args *A, l cpuLaunch) error {
	e.t.Helper()
	sig, err := rocr.NewSignal(1)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = sig.Destroy() }()
	cpuDispatch(e, name, args, l, sig)
	if v, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked); !ok {
		e.t.Fatalf("%s: signal still %d", name, v)
	}
	return sig.Err()
}

func cpuMustRun[A any](e *cpuEnv, name string, args *A, l cpuLaunch) {
	e.t.Helper()
	if err := cpuRun(e, name, args, l); err != nil {
		e.t.Fatal(err)
	}
}

func cpuBlocks(a, b int) uint32 { return uint32((a + b - 1) / b) }

func cpuRandFill(r *rand.Rand, xs []float32) {
	for i := range xs {
		xs[i] = 2*r.Float32() - 1
	}
}

func cpuF64(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// cpuCheckClose fails unless got and want agree within tol, relative to the
// larger of 1 and |want|.
func cpuCheckClose(t *testing.T, what string, got []float32, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range got {
		if !scalar.EqualWithinAbsOrRel(float64(got[i]), want[i], tol, tol) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d values wrong", what, bad, len(got))
	}
}

// cpuCheckUntouched fails unless every value of xs is still cpuSentinel.
func cpuCheckUntouched(t *testing.T, what string, xs []float32) {
	t.Helper()
	for i, x := range xs {
		if math.Float32bits(x) != math.Float32bits(cpuSentinel) {
			t.Fatalf("%s[%d] = %v: written past the edge", what, i, x)
		}
	}
}

const cpuSentinel = float32(-12345.5)

// cVectorAddArgs is vector_add's kernarg layout, as a C caller lays it out.
type cVectorAddArgs struct {
	A, B rocr.ConstPtr[float32]
	C    rocr.Ptr[float32]
	N    int32
}

func TestCPUSet(t *testing.T) {
	e := newCPUEnv(t)
	set := CPUSet()
	if len(set.Kernels) != len(kernelNames) {
		t.Fatalf("CPUSet has %d kernels, want %d", len(set.Kernels), len(kernelNames))
	}
	for i, name := range kernelNames {
		if got := set.Kernels[i].Name(); got != name {
			t.Errorf("kernel %d is %q, want %q", i, got, name)
		}
		if _, err := rocr.FindKernel(e.exe, name); err != nil {
			t.Error(err)
		}
	}
	cpuMustRun(e, "empty", &struct{}{}, cpuLaunch1D(3, 64))
}

func TestVectorAdd(t *testing.T) {
	e := newCPUEnv(t)
	const n, block, pad = 1000, 256, 24
	r := rand.New(rand.NewPCG(1, 2))
	a, A := e.buf(n)
	b, B := e.buf(n)
	c, C := e.buf(n + pad)
	cpuRandFill(r, A)
	cpuRandFill(r, B)
	for i := range C {
		C[i] = cpuSentinel
	}
	cpuMustRun(e, "vector_add", &cVectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n}, cpuLaunch1D(cpuBlocks(n, block), block))
	want := make([]float64, n)
	floats.AddTo(want, cpuF64(A), cpuF64(B))
	cpuCheckClose(t, "C", C[:n], want, 1e-6)
	cpuCheckUntouched(t, "C", C[n:])

	// n past the end of c fails the dispatch instead of writing past it.
	if err := cpuRun(e, "vector_add", &cVectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n + pad + 1}, cpuLaunch1D(cpuBlocks(n+pad+1, block), block)); err == nil {
		t.Fatal("vector_add past the end of its buffers succeeded")
	} else {
		t.Log(err)
	}
}

// TestVectorAddPartialGroup launches AQL grids that end in a partial
// work-group: work-items that do not exist write nothing.
func TestVectorAddPartialGroup(t *testing.T) {
	e := newCPUEnv(t)
	const n, block = 1000, 256
	a, A := e.buf(n)
	b, B := e.buf(n)
	c, C := e.buf(n)
	for i := range A {
		A[i], B[i] = float32(i), 0.5
	}
	for _, items := range []int{n, 900} {
		for i := range C {
			C[i] = cpuSentinel
		}
		l := cpuLaunch1D(cpuBlocks(items, block), block)
		l.items = [3]uint32{uint32(items), 1, 1}
		cpuMustRun(e, "vector_add", &cVectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n}, l)
		for i := range items {
			if C[i] != float32(i)+0.5 {
				t.Fatalf("grid of %d: C[%d] = %v", items, i, C[i])
			}
		}
		cpuCheckUntouched(t, "C", C[items:])
	}
}
