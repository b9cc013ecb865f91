package kernels

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// cpuEnv is the cpu agent with the kernel set loaded and one queue.
type cpuEnv struct {
	t   testing.TB
	ag  *rocr.Agent
	q   *rocr.Queue
	exe rocr.Executable
}

func newCPUEnv(t testing.TB) *cpuEnv {
	e := &cpuEnv{t: t, ag: cputest.Agent(t)}
	var err error
	if e.exe, err = e.ag.Load(CPUSet().Code()); err != nil {
		t.Fatal(err)
	}
	if e.q, err = e.ag.CreateQueue(64, rocr.QueueMulti, nil); err != nil {
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
	p, err := e.ag.Pool(rocr.SegmentGlobal, rocr.FlagCoarseGrained)
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
	if v, ok := sig.WaitTimed(rocr.CondEQ, 0, 10*time.Second, rocr.WaitBlocked); !ok {
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

func TestArgLayout(t *testing.T) {
	type off struct {
		name string
		got  uintptr
		want uintptr
	}
	var (
		va VectorAddArgs
		sx SaxpyArgs
		fl FillF32Args
		rs ReduceSumArgs
		tr TransposeArgs
		gm SgemmArgs
	)
	for _, o := range []off{
		{"VectorAddArgs.A", unsafe.Offsetof(va.A), 0},
		{"VectorAddArgs.B", unsafe.Offsetof(va.B), 8},
		{"VectorAddArgs.C", unsafe.Offsetof(va.C), 16},
		{"VectorAddArgs.N", unsafe.Offsetof(va.N), 24},
		{"SaxpyArgs.Alpha", unsafe.Offsetof(sx.Alpha), 0},
		{"SaxpyArgs.X", unsafe.Offsetof(sx.X), 8},
		{"SaxpyArgs.Y", unsafe.Offsetof(sx.Y), 16},
		{"SaxpyArgs.N", unsafe.Offsetof(sx.N), 24},
		{"FillF32Args.P", unsafe.Offsetof(fl.P), 0},
		{"FillF32Args.Value", unsafe.Offsetof(fl.Value), 8},
		{"FillF32Args.N", unsafe.Offsetof(fl.N), 12},
		{"ReduceSumArgs.In", unsafe.Offsetof(rs.In), 0},
		{"ReduceSumArgs.Partial", unsafe.Offsetof(rs.Partial), 8},
		{"ReduceSumArgs.N", unsafe.Offsetof(rs.N), 16},
		{"TransposeArgs.In", unsafe.Offsetof(tr.In), 0},
		{"TransposeArgs.Out", unsafe.Offsetof(tr.Out), 8},
		{"TransposeArgs.Rows", unsafe.Offsetof(tr.Rows), 16},
		{"TransposeArgs.Cols", unsafe.Offsetof(tr.Cols), 20},
		{"SgemmArgs.M", unsafe.Offsetof(gm.M), 0},
		{"SgemmArgs.N", unsafe.Offsetof(gm.N), 4},
		{"SgemmArgs.K", unsafe.Offsetof(gm.K), 8},
		{"SgemmArgs.Alpha", unsafe.Offsetof(gm.Alpha), 12},
		{"SgemmArgs.A", unsafe.Offsetof(gm.A), 16},
		{"SgemmArgs.B", unsafe.Offsetof(gm.B), 24},
		{"SgemmArgs.Beta", unsafe.Offsetof(gm.Beta), 32},
		{"SgemmArgs.C", unsafe.Offsetof(gm.C), 40},
	} {
		if o.got != o.want {
			t.Errorf("%s at offset %d, HIP has it at %d", o.name, o.got, o.want)
		}
	}
	if n := unsafe.Sizeof(EmptyArgs{}); n != 0 {
		t.Errorf("EmptyArgs is %d bytes", n)
	}
}

// TestArgLayoutMatchesCodeObjects compares each Go kernel's declared
// signature with the compiled kernels' metadata: every AMDGPU target's
// explicit arguments and static group memory, and the PTX .param lists.
func TestArgLayoutMatchesCodeObjects(t *testing.T) {
	goKernels := map[string]*cpu.Kernel{}
	for _, k := range CPUSet().Kernels {
		goKernels[k.Name()] = k
	}
	for _, blob := range []struct {
		name string
		b    []byte
	}{{"AMDGPUBundle", AMDGPUBundle}, {"PTXsm80", []byte(PTXsm80)}, {"PTXsm90", []byte(PTXsm90)}} {
		spec, err := codeobj.Parse(blob.b)
		if err != nil {
			t.Fatalf("%s: %v", blob.name, err)
		}
		for _, o := range spec.Objects {
			if len(o.Kernels) != len(goKernels) {
				t.Errorf("%s %s: %d kernels, the cpu set has %d", blob.name, o.Target, len(o.Kernels), len(goKernels))
			}
			for _, ck := range o.Kernels {
				gk, ok := goKernels[ck.Name]
				if !ok {
					t.Errorf("%s %s: kernel %s has no Go implementation", blob.name, o.Target, ck.Name)
					continue
				}
				sym := gk.Symbol()
				args := ck.ExplicitArgs()
				if len(args) != len(sym.Args) {
					t.Errorf("%s %s %s: %d arguments, Go declares %d", blob.name, o.Target, ck.Name, len(args), len(sym.Args))
					continue
				}
				for i, a := range args {
					if g := sym.Args[i]; g.Offset != a.Offset || g.Size != a.Size {
						t.Errorf("%s %s %s argument %d (Go %s): Go offset %d size %d, code object offset %d size %d",
							blob.name, o.Target, ck.Name, i, g.Name, g.Offset, g.Size, a.Offset, a.Size)
					}
				}
				// PTX reports no static shared memory; AMDGPU metadata does.
				if o.Format == codeobj.FormatELF && ck.GroupSegmentSize != sym.GroupSegmentSize {
					t.Errorf("%s %s %s: static group memory %d bytes, Go declares %d", blob.name, o.Target, ck.Name, ck.GroupSegmentSize, sym.GroupSegmentSize)
				}
			}
		}
	}
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
	cpuMustRun(e, "empty", &EmptyArgs{}, cpuLaunch1D(3, 64))
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
	cpuMustRun(e, "vector_add", &VectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n}, cpuLaunch1D(cpuBlocks(n, block), block))
	want := make([]float64, n)
	floats.AddTo(want, cpuF64(A), cpuF64(B))
	cpuCheckClose(t, "C", C[:n], want, 1e-6)
	cpuCheckUntouched(t, "C", C[n:])

	// n past the end of c fails the dispatch instead of writing past it.
	if err := cpuRun(e, "vector_add", &VectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n + pad + 1}, cpuLaunch1D(cpuBlocks(n+pad+1, block), block)); err == nil {
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
		cpuMustRun(e, "vector_add", &VectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), c, n}, l)
		for i := range items {
			if C[i] != float32(i)+0.5 {
				t.Fatalf("grid of %d: C[%d] = %v", items, i, C[i])
			}
		}
		cpuCheckUntouched(t, "C", C[items:])
	}
}

func TestSaxpy(t *testing.T) {
	e := newCPUEnv(t)
	const n, block, pad = 1000, 256, 24
	const alpha = float32(-1.75)
	r := rand.New(rand.NewPCG(3, 4))
	x, X := e.buf(n)
	y, Y := e.buf(n + pad)
	cpuRandFill(r, X)
	cpuRandFill(r, Y)
	for i := n; i < len(Y); i++ {
		Y[i] = cpuSentinel
	}
	want32 := append([]float32(nil), Y[:n]...)
	blas32.Axpy(alpha, blas32.Vector{N: n, Inc: 1, Data: X}, blas32.Vector{N: n, Inc: 1, Data: want32})
	cpuMustRun(e, "saxpy", &SaxpyArgs{alpha, rocr.ConstPtr[float32](x), y, n}, cpuLaunch1D(cpuBlocks(n, block), block))
	cpuCheckClose(t, "Y", Y[:n], cpuF64(want32), 1e-6)
	cpuCheckUntouched(t, "Y", Y[n:])
}

func TestFillF32(t *testing.T) {
	e := newCPUEnv(t)
	const n, block, pad = 1000, 256, 24
	p, P := e.buf(n + pad)
	for i := range P {
		P[i] = cpuSentinel
	}
	cpuMustRun(e, "fill_f32", &FillF32Args{p, 2.5, n}, cpuLaunch1D(cpuBlocks(n, block), block))
	for i, v := range P[:n] {
		if v != 2.5 {
			t.Fatalf("P[%d] = %v, want 2.5", i, v)
		}
	}
	cpuCheckUntouched(t, "P", P[n:])
}

func TestReduceSum(t *testing.T) {
	e := newCPUEnv(t)
	const n, groups, block = 100003, 37, 256
	r := rand.New(rand.NewPCG(5, 6))
	in, In := e.buf(n)
	partial, Partial := e.buf(groups + 1)
	cpuRandFill(r, In)
	Partial[groups] = cpuSentinel
	l := cpuLaunch1D(groups, block)
	l.dynShared = 4 * block
	cpuMustRun(e, "reduce_sum", &ReduceSumArgs{rocr.ConstPtr[float32](in), partial, n}, l)
	// Each partial is the sum of its group's grid-stride slices.
	for b := range groups {
		var mine []float64
		for i := b * block; i < n; i += groups * block {
			for j := i; j < min(i+block, n); j++ {
				mine = append(mine, float64(In[j]))
			}
		}
		if got, want := float64(Partial[b]), floats.Sum(mine); !scalar.EqualWithinAbsOrRel(got, want, 1e-4, 1e-5) {
			t.Errorf("partial[%d] = %v, want %v", b, got, want)
		}
	}
	cpuCheckUntouched(t, "partial", Partial[groups:])
	total := floats.Sum(cpuF64(Partial[:groups]))
	if want := floats.Sum(cpuF64(In)); !scalar.EqualWithinAbsOrRel(total, want, 1e-3, 1e-5) {
		t.Fatalf("sum of partials = %v, want %v", total, want)
	}

	// Without its dynamic group memory the kernel fails the dispatch.
	if err := cpuRun(e, "reduce_sum", &ReduceSumArgs{rocr.ConstPtr[float32](in), partial, n}, cpuLaunch1D(groups, block)); err == nil {
		t.Fatal("reduce_sum without dynamic group memory succeeded")
	} else {
		t.Log(err)
	}
}

// Test-only kernels that run the literal translations of the HIP code on
// every group, so they can be compared with the fast paths.
var (
	transposeLiteralKernel = cpu.Define("kernels_test_transpose_literal", transposeLiteral,
		cpu.StaticShared(transposeTile*transposePad*4))
	sgemmLiteralKernel = cpu.Define("kernels_test_sgemm_literal", sgemmLiteral,
		cpu.StaticShared(2*gemmTile*gemmTile*4))
)

func loadTestKernels(t *testing.T, e *cpuEnv) *cpuEnv {
	exe, err := e.ag.Load(cpu.NewSet("kernels-test", transposeLiteralKernel, sgemmLiteralKernel).Code())
	if err != nil {
		t.Fatal(err)
	}
	return &cpuEnv{t: t, ag: e.ag, q: e.q, exe: exe}
}

func TestTranspose(t *testing.T) {
	e := newCPUEnv(t)
	lit := loadTestKernels(t, e)
	const rows, cols, pad = 70, 45, 16
	r := rand.New(rand.NewPCG(7, 8))
	in, In := e.buf(rows * cols)
	cpuRandFill(r, In)
	want := mat.DenseCopyOf(mat.NewDense(rows, cols, cpuF64(In)).T())
	l := cpuLaunch{grid: [3]uint32{cpuBlocks(cols, 32), cpuBlocks(rows, 32), 1}, block: [3]uint32{32, 8, 1}}
	for _, k := range []struct {
		env  *cpuEnv
		name string
	}{{e, "transpose"}, {lit, "kernels_test_transpose_literal"}} {
		t.Run(k.name, func(t *testing.T) {
			out, Out := e.buf(rows*cols + pad)
			for i := range Out {
				Out[i] = cpuSentinel
			}
			cpuMustRun(k.env, k.name, &TransposeArgs{rocr.ConstPtr[float32](in), out, rows, cols}, l)
			got := mat.NewDense(cols, rows, cpuF64(Out[:rows*cols]))
			if !mat.Equal(got, want) {
				t.Fatalf("out != in^T:\n%v", mat.Formatted(got))
			}
			cpuCheckUntouched(t, "out", Out[rows*cols:])
		})
	}
}

func TestSgemm(t *testing.T) {
	e := newCPUEnv(t)
	lit := loadTestKernels(t, e)
	const m, n, k, pad = 37, 29, 41, 16
	const alpha, beta = float32(1.5), float32(-0.5)
	r := rand.New(rand.NewPCG(9, 10))
	a, A := e.buf(m * k)
	b, B := e.buf(k * n)
	cpuRandFill(r, A)
	cpuRandFill(r, B)
	C0 := make([]float32, m*n)
	cpuRandFill(r, C0)
	want := blas32.General{Rows: m, Cols: n, Stride: n, Data: append([]float32(nil), C0...)}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, alpha,
		blas32.General{Rows: m, Cols: k, Stride: k, Data: A},
		blas32.General{Rows: k, Cols: n, Stride: n, Data: B}, beta, want)
	l := cpuLaunch{grid: [3]uint32{cpuBlocks(n, 16), cpuBlocks(m, 16), 1}, block: [3]uint32{16, 16, 1}}
	var results [][]float32
	for _, kern := range []struct {
		env  *cpuEnv
		name string
	}{{e, "sgemm"}, {lit, "kernels_test_sgemm_literal"}} {
		c, C := e.buf(m*n + pad)
		copy(C, C0)
		for i := m * n; i < len(C); i++ {
			C[i] = cpuSentinel
		}
		cpuMustRun(kern.env, kern.name, &SgemmArgs{m, n, k, alpha, rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), beta, c}, l)
		cpuCheckClose(t, kern.name, C[:m*n], cpuF64(want.Data), 1e-5)
		cpuCheckUntouched(t, kern.name, C[m*n:])
		results = append(results, C[:m*n])
	}
	// The blocked path adds the products in the HIP kernel's order, so it
	// equals the literal translation bit for bit.
	for i := range results[0] {
		if math.Float32bits(results[0][i]) != math.Float32bits(results[1][i]) {
			t.Fatalf("C[%d]: blocked %v, literal %v", i, results[0][i], results[1][i])
		}
	}
}

// vectorAdd2p24 is the benchmarks' problem: 2^24 float32 per vector in the
// cpu agent's memory.
type vectorAdd2p24 struct {
	e       *cpuEnv
	args    VectorAddArgs
	A, B, C []float32
}

const cpuN2p24 = 1 << 24

func newVectorAdd2p24(b *testing.B) *vectorAdd2p24 {
	e := newCPUEnv(b)
	v := &vectorAdd2p24{e: e}
	var a, bb, c rocr.Ptr[float32]
	a, v.A = e.buf(cpuN2p24)
	bb, v.B = e.buf(cpuN2p24)
	c, v.C = e.buf(cpuN2p24)
	for i := range v.A {
		v.A[i], v.B[i] = float32(i), 1
	}
	v.args = VectorAddArgs{rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](bb), c, cpuN2p24}
	b.SetBytes(3 * 4 * cpuN2p24)
	b.ReportAllocs()
	return v
}

func (v *vectorAdd2p24) check(b *testing.B) {
	for _, i := range []int{0, 1, cpuN2p24/2 + 3, cpuN2p24 - 1} {
		if v.C[i] != float32(i)+1 {
			b.Fatalf("C[%d] = %v", i, v.C[i])
		}
	}
}

func BenchmarkVectorAdd2p24(b *testing.B) {
	v := newVectorAdd2p24(b)
	sig, err := rocr.NewSignal(1)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sig.Destroy() }()
	const block = 256
	l := cpuLaunch1D(cpuN2p24/block, block)
	for b.Loop() {
		sig.Store(1, rocr.Relaxed)
		cpuDispatch(v.e, "vector_add", &v.args, l, sig)
		sig.Wait(rocr.CondEQ, 0, 0, rocr.WaitBlocked)
	}
	if err := sig.Err(); err != nil {
		b.Fatal(err)
	}
	v.check(b)
}

// BenchmarkVectorAdd2p24Loop is the peer: the same sum over the same memory
// by a plain Go loop split over GOMAXPROCS goroutines.
func BenchmarkVectorAdd2p24Loop(b *testing.B) {
	v := newVectorAdd2p24(b)
	procs := runtime.GOMAXPROCS(0)
	for b.Loop() {
		var wg sync.WaitGroup
		for p := range procs {
			lo, hi := p*cpuN2p24/procs, (p+1)*cpuN2p24/procs
			wg.Go(func() {
				C := v.C[lo:hi]
				A, B := v.A[lo:hi][:len(C)], v.B[lo:hi][:len(C)]
				for i := range C {
					C[i] = A[i] + B[i]
				}
			})
		}
		wg.Wait()
	}
	v.check(b)
}
