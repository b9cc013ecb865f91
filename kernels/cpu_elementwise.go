package kernels

import (
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// The element-wise kernels of src/elementwise.hip for the cpu agent. In HIP
// work-item i = blockIdx.x*blockDim.x + threadIdx.x handles element i when
// i < n; here a work-group takes its whole range [lo, hi) at once (Span
// clips it to n and to the grid) and loops over plain Go slices, so memory
// is checked once per group, not once per element.

// EmptyArgs is the (empty) argument list of empty.
type EmptyArgs struct{}

// VectorAddArgs is the kernarg layout of
// vector_add(const float *a, const float *b, float *c, int n).
type VectorAddArgs struct {
	A, B rocr.ConstPtr[float32] // offsets 0, 8
	C    rocr.Ptr[float32]      // offset 16
	N    int32                  // offset 24
}

// SaxpyArgs is the kernarg layout of
// saxpy(float alpha, const float *x, float *y, int n).
type SaxpyArgs struct {
	Alpha float32                // offset 0
	X     rocr.ConstPtr[float32] // offset 8
	Y     rocr.Ptr[float32]      // offset 16
	N     int32                  // offset 24
}

// FillF32Args is the kernarg layout of fill_f32(float *p, float value, int n).
type FillF32Args struct {
	P     rocr.Ptr[float32] // offset 0
	Value float32           // offset 8
	N     int32             // offset 12
}

// EmptyKernel does nothing; launch-latency benchmarks dispatch it.
var EmptyKernel = cpu.Define("empty", func(*cpu.Group, *EmptyArgs) {})

// VectorAddKernel computes c[i] = a[i] + b[i] for i < n.
var VectorAddKernel = cpu.Define("vector_add", func(g *cpu.Group, a *VectorAddArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	c := a.C.Slice(g, lo, hi)
	x, y := a.A.Slice(g, lo, hi)[:len(c)], a.B.Slice(g, lo, hi)[:len(c)]
	for i := range c {
		c[i] = x[i] + y[i]
	}
})

// SaxpyKernel computes y[i] = alpha*x[i] + y[i] for i < n.
var SaxpyKernel = cpu.Define("saxpy", func(g *cpu.Group, a *SaxpyArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	y := a.Y.Slice(g, lo, hi)
	x := a.X.Slice(g, lo, hi)[:len(y)]
	alpha := a.Alpha
	for i := range y {
		y[i] = alpha*x[i] + y[i]
	}
})

// FillF32Kernel sets p[i] = value for i < n.
var FillF32Kernel = cpu.Define("fill_f32", func(g *cpu.Group, a *FillF32Args) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	p, v := a.P.Slice(g, lo, hi), a.Value
	for i := range p {
		p[i] = v
	}
})

// CPUSet returns the cpu agent's build of the kernel library, the Go
// counterpart of AMDGPUBundle and the PTX: every kernel under its HIP name.
// Each call returns a new set, so callers may not disturb one another.
func CPUSet() *cpu.Set {
	return cpu.NewSet("hipgo-kernels",
		EmptyKernel, VectorAddKernel, SaxpyKernel, FillF32Kernel,
		ReduceSumKernel, TransposeKernel, SgemmKernel)
}
