package array

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/instance"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Fusion. Map1..Map4 run a user's operation over arrays as one kernel:
// an expression written as one Apply method is one pass over memory,
// however many operations it holds. The operation is a functor, a
// package-level struct type without fields whose value method Apply is
// a Go device function (the kernel subset of docs/go-kernels.md):
//
//	type axpy struct{}
//
//	func (axpy) Apply(a, x, y float32) float32 { return a*x + y }
//
//	z, err := array.Map3(axpy{}, a, x, y)
//
// hipgo-gen, run by go generate in the package that makes the call,
// finds the call and writes the kernel for (axpy, float32, ...) into
// hipgo_inst_gen.go, which registers its launcher at init (RegisterMap3).
// A call looks the launcher up by its type arguments; on a GPU a missing
// one is an error wrapping gpu.ErrNotSupported that names the go
// generate to run. The cpu agent runs the same Apply from Go, so there a
// call works without generated code too.

// Func1 is Map1's operation: a functor whose Apply maps an element of
// the input to an element of the result.
type Func1[R, X1 Number] interface{ Apply(x1 X1) R }

// Func2 is Map2's operation.
type Func2[R, X1, X2 Number] interface{ Apply(x1 X1, x2 X2) R }

// Func3 is Map3's operation.
type Func3[R, X1, X2, X3 Number] interface{ Apply(x1 X1, x2 X2, x3 X3) R }

// Func4 is Map4's operation.
type Func4[R, X1, X2, X3, X4 Number] interface {
	Apply(x1 X1, x2 X2, x3 X3, x4 X4) R
}

// The launchers hipgo-gen writes for Map1..Map4's instances. Input k is
// read at element (i/dk)%mk of the result's element i (dk 0: at i; mk
// 1: at 0), which is how an input broadcasts. span 0 is a grid-stride
// loop (GPUs); span > 0 gives block b the elements [b*span, (b+1)*span)
// (the cpu agent, blocks of one work-item).
type (
	Map1Launch[R, X1 Number]             = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, span int) error
	Map2Launch[R, X1, X2 Number]         = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, span int) error
	Map3Launch[R, X1, X2, X3 Number]     = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, x3 buffer.Array[X3], d3, m3 int, span int) error
	Map4Launch[R, X1, X2, X3, X4 Number] = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, x3 buffer.Array[X3], d3, m3 int, x4 buffer.Array[X4], d4, m4 int, span int) error
)

// The registry's keys: one type per arity, instantiated with the call's
// type arguments (gpu/internal/instance). cpuKey marks the cpu agent's
// own launchers, made on first use.
type (
	map1Key[F any, R, X1 Number]             struct{}
	map2Key[F any, R, X1, X2 Number]         struct{}
	map3Key[F any, R, X1, X2, X3 Number]     struct{}
	map4Key[F any, R, X1, X2, X3, X4 Number] struct{}
	cpuKey[K any]                            struct{}
)

var maps instance.Registry

// cpuFallback lets the cpu agent run an operation hipgo-gen has not
// instantiated; tests turn it off to see the GPU's error.
var cpuFallback = true

// RegisterMap1 registers the launcher of Map1's instance for F; the code
// hipgo-gen writes calls it at init. A second registration of one
// instance panics.
func RegisterMap1[F Func1[R, X1], R, X1 Number](launch Map1Launch[R, X1]) {
	maps.Add(any((*map1Key[F, R, X1])(nil)), launch)
}

// RegisterMap2 is RegisterMap1 for Map2.
func RegisterMap2[F Func2[R, X1, X2], R, X1, X2 Number](launch Map2Launch[R, X1, X2]) {
	maps.Add(any((*map2Key[F, R, X1, X2])(nil)), launch)
}

// RegisterMap3 is RegisterMap1 for Map3.
func RegisterMap3[F Func3[R, X1, X2, X3], R, X1, X2, X3 Number](launch Map3Launch[R, X1, X2, X3]) {
	maps.Add(any((*map3Key[F, R, X1, X2, X3])(nil)), launch)
}

// RegisterMap4 is RegisterMap1 for Map4.
func RegisterMap4[F Func4[R, X1, X2, X3, X4], R, X1, X2, X3, X4 Number](launch Map4Launch[R, X1, X2, X3, X4]) {
	maps.Add(any((*map4Key[F, R, X1, X2, X3, X4])(nil)), launch)
}

// launcher is the launcher registered under key K, or on the cpu agent
// the one make builds (once per K); nil on a GPU without one.
func launcher[L any, K any](s *stream.Stream, make func() L) (L, bool) {
	if v, ok := maps.Lookup(any((*K)(nil))); ok {
		return v.(L), true
	}
	if cpuFallback && s.Device().Properties().IsCPU {
		if v, ok := maps.Lookup(any((*cpuKey[K])(nil))); ok {
			return v.(L), true
		}
		return maps.LoadOrAdd(any((*cpuKey[K])(nil)), make()).(L), true
	}
	var zero L
	return zero, false
}

// notGenerated is the error of a call whose instance hipgo-gen has not
// written: what to run, and the instance by its type arguments.
func notGenerated(op string, s *stream.Stream, f any, types ...any) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%T", f)
	for _, t := range types {
		fmt.Fprintf(&b, ", %T", t)
	}
	return gpu.Errorf(gpu.ErrNotSupported, op, "no kernel for [%s] on %s: run go generate in the package that declares the operation and calls Map with it, after a line //go:generate go run github.com/hipgo/hipgo/cmd/hipgo-gen -go . -o kernels_gen.go (it writes hipgo_inst_gen.go)", b.String(), s.Device())
}

// operand is an input's shape and where the result reads it.
type operand struct {
	shape []int
	d, m  int
}

// broadcast checks the inputs (good, on one device) and fits their shapes
// together as NumPy broadcasts them: aligned at the last axis, a
// dimension of 1 (or a missing one) stretching to the other's. It sets
// each operand's d and m and returns the result's shape: the first
// input's where all are the same, else a new slice (fresh). An input that broadcasts along two separate groups of axes ((3,
// 1, 5) against (3, 4, 5)) is not supported yet.
func broadcast(op string, ins []operand) (shape []int, fresh bool, err error) {
	shape = ins[0].shape
	same := true
	for _, in := range ins[1:] {
		if len(in.shape) != len(shape) {
			same = false
			break
		}
		for i := range shape {
			if in.shape[i] != shape[i] {
				same = false
			}
		}
	}
	if same {
		return shape, false, nil // d = 0: every input at the result's index
	}
	rank := 0
	for _, in := range ins {
		rank = max(rank, len(in.shape))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, in := range ins {
		off := rank - len(in.shape)
		for i, d := range in.shape {
			switch o := &out[off+i]; {
			case d == *o || d == 1:
			case *o == 1:
				*o = d
			default:
				return nil, false, &ShapeError{Op: op, Shapes: shapesOf(ins), Reason: "shapes that do not broadcast"}
			}
		}
	}
	n := 1
	for _, d := range out {
		n *= d
	}
	for k := range ins {
		in := &ins[k]
		off := rank - len(in.shape)
		// The axes where in varies: one run [lo, hi) of the result's
		// axes longer than 1.
		lo, hi, runs, prev := -1, -1, 0, false
		for i := 0; i < rank; i++ {
			if out[i] == 1 {
				continue
			}
			varies := i >= off && in.shape[i-off] != 1
			if varies && !prev {
				runs++
				if lo < 0 {
					lo = i
				}
			}
			if varies {
				hi = i + 1
			}
			prev = varies
		}
		switch {
		case lo < 0: // one element
			in.d, in.m = 1, 1
		case runs > 1:
			return nil, false, &ShapeError{Op: op, Shapes: shapesOf(ins), Reason: "an input broadcast along two separate groups of axes (not supported yet: reshape it, or make it full size)"}
		default:
			d, m := 1, 1
			for i := hi; i < rank; i++ {
				d *= out[i]
			}
			for i := lo; i < hi; i++ {
				m *= out[i]
			}
			if m == n {
				d = 0 // every element, at the result's index
			}
			in.d, in.m = d, m
		}
	}
	return out, true, nil
}

func shapesOf(ins []operand) [][]int {
	out := make([][]int, len(ins))
	for i, in := range ins {
		out[i] = in.shape
	}
	return out
}

// mapShape is an element-wise launch over n elements: blocks of 256
// work-items in a grid-stride loop on a GPU, blocks of one work-item
// over contiguous spans on the cpu agent.
func mapShape(s *stream.Stream, n int) (grid, block, span int) {
	p := s.Device().Properties()
	sms := max(1, p.MultiProcessorCount)
	if p.IsCPU {
		blocks := min(max(1, (n+(1<<15)-1)>>15), 4*sms)
		span = max(1, (n+blocks-1)/blocks)
		return (n + span - 1) / span, 1, span
	}
	return max(1, min((n+255)/256, 16*sms)), 256, 0
}

// checkFunctor refuses an operation with fields: the kernel makes its
// own zero value of F, so fields would be lost.
func checkFunctor[F any](op string) error {
	var f F
	if unsafe.Sizeof(f) != 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "operation %T has fields: a functor is a struct type without fields (pass values as arrays)", f)
	}
	return nil
}

// mapped is the common part of Map1..Map4 after the launch: the result,
// freed again when the launch failed.
func mapped[R Number](out *Array[R], err error) (*Array[R], error) {
	if err != nil {
		return nil, errors.Join(err, out.Free())
	}
	return out, nil
}

// shapeOf checks what every Map checks of its inputs (one device,
// shapes that broadcast) and returns the result's shape (broadcast's).
func shapeOf(op string, ins []operand, devs []*gpu.Device) ([]int, bool, error) {
	for _, d := range devs[1:] {
		if d != devs[0] {
			return nil, false, gpu.Errorf(gpu.ErrInvalidValue, op, "operands on %s and %s", devs[0], d)
		}
	}
	return broadcast(op, ins)
}

// mapResult allocates Map's result of shape on s; fresh says shape is the
// result's own (alloc's copy of it would be a second allocation).
func mapResult[R Element](op string, s *stream.Stream, shape []int, fresh bool) (*Array[R], error) {
	if !fresh {
		return alloc[R](op, s, shape)
	}
	n, err := checkShape(op, shape)
	if err != nil {
		return nil, err
	}
	b, err := buffer.NewAsync[R](s, n)
	if err != nil {
		return nil, err
	}
	return &Array[R]{s: s, buf: b, data: b, shape: shape, size: n}, nil
}

// Map1 is op.Apply of each element of a, as one kernel on a's stream
// (cupy.ElementwiseKernel, CUDA.jl's map). See Func1 and the package
// documentation for how the kernel comes to be.
func Map1[F Func1[R, X1], R, X1 Number](op F, a *Array[X1]) (*Array[R], error) {
	const name = "array map1"
	if err := errors.Join(checkFunctor[F](name), a.check(name)); err != nil {
		return nil, err
	}
	ins := [...]operand{{shape: a.shape}}
	devs := [...]*gpu.Device{a.s.Device()}
	shape, fresh, err := shapeOf(name, ins[:], devs[:])
	if err != nil {
		return nil, err
	}
	launch, ok := launcher[Map1Launch[R, X1], map1Key[F, R, X1]](a.s, newCPUMap1[F, R, X1])
	if !ok {
		return nil, notGenerated(name, a.s, op, *new(R), *new(X1))
	}
	out, err := mapResult[R](name, a.s, shape, fresh)
	if err != nil || out.size == 0 {
		return out, err
	}
	grid, block, span := mapShape(a.s, out.size)
	return mapped(out, launch(a.s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, out.data,
		a.data, ins[0].d, ins[0].m, span))
}

// Map2 is op.Apply of the elements of a and b, broadcast to one shape,
// as one kernel on a's stream.
func Map2[F Func2[R, X1, X2], R, X1, X2 Number](op F, a *Array[X1], b *Array[X2]) (*Array[R], error) {
	const name = "array map2"
	if err := errors.Join(checkFunctor[F](name), a.check(name), b.check(name)); err != nil {
		return nil, err
	}
	ins := [...]operand{{shape: a.shape}, {shape: b.shape}}
	devs := [...]*gpu.Device{a.s.Device(), b.s.Device()}
	shape, fresh, err := shapeOf(name, ins[:], devs[:])
	if err != nil {
		return nil, err
	}
	launch, ok := launcher[Map2Launch[R, X1, X2], map2Key[F, R, X1, X2]](a.s, newCPUMap2[F, R, X1, X2])
	if !ok {
		return nil, notGenerated(name, a.s, op, *new(R), *new(X1), *new(X2))
	}
	out, err := mapResult[R](name, a.s, shape, fresh)
	if err != nil || out.size == 0 {
		return out, err
	}
	grid, block, span := mapShape(a.s, out.size)
	return mapped(out, launch(a.s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, out.data,
		a.data, ins[0].d, ins[0].m, b.data, ins[1].d, ins[1].m, span))
}

// Map3 is op.Apply of the elements of a, b and c, broadcast to one
// shape, as one kernel on a's stream.
func Map3[F Func3[R, X1, X2, X3], R, X1, X2, X3 Number](op F, a *Array[X1], b *Array[X2], c *Array[X3]) (*Array[R], error) {
	const name = "array map3"
	if err := errors.Join(checkFunctor[F](name), a.check(name), b.check(name), c.check(name)); err != nil {
		return nil, err
	}
	ins := [...]operand{{shape: a.shape}, {shape: b.shape}, {shape: c.shape}}
	devs := [...]*gpu.Device{a.s.Device(), b.s.Device(), c.s.Device()}
	shape, fresh, err := shapeOf(name, ins[:], devs[:])
	if err != nil {
		return nil, err
	}
	launch, ok := launcher[Map3Launch[R, X1, X2, X3], map3Key[F, R, X1, X2, X3]](a.s, newCPUMap3[F, R, X1, X2, X3])
	if !ok {
		return nil, notGenerated(name, a.s, op, *new(R), *new(X1), *new(X2), *new(X3))
	}
	out, err := mapResult[R](name, a.s, shape, fresh)
	if err != nil || out.size == 0 {
		return out, err
	}
	grid, block, span := mapShape(a.s, out.size)
	return mapped(out, launch(a.s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, out.data,
		a.data, ins[0].d, ins[0].m, b.data, ins[1].d, ins[1].m, c.data, ins[2].d, ins[2].m, span))
}

// Map4 is op.Apply of the elements of a, b, c and d, broadcast to one
// shape, as one kernel on a's stream.
func Map4[F Func4[R, X1, X2, X3, X4], R, X1, X2, X3, X4 Number](op F, a *Array[X1], b *Array[X2], c *Array[X3], d *Array[X4]) (*Array[R], error) {
	const name = "array map4"
	if err := errors.Join(checkFunctor[F](name), a.check(name), b.check(name), c.check(name), d.check(name)); err != nil {
		return nil, err
	}
	ins := [...]operand{{shape: a.shape}, {shape: b.shape}, {shape: c.shape}, {shape: d.shape}}
	devs := [...]*gpu.Device{a.s.Device(), b.s.Device(), c.s.Device(), d.s.Device()}
	shape, fresh, err := shapeOf(name, ins[:], devs[:])
	if err != nil {
		return nil, err
	}
	launch, ok := launcher[Map4Launch[R, X1, X2, X3, X4], map4Key[F, R, X1, X2, X3, X4]](a.s, newCPUMap4[F, R, X1, X2, X3, X4])
	if !ok {
		return nil, notGenerated(name, a.s, op, *new(R), *new(X1), *new(X2), *new(X3), *new(X4))
	}
	out, err := mapResult[R](name, a.s, shape, fresh)
	if err != nil || out.size == 0 {
		return out, err
	}
	grid, block, span := mapShape(a.s, out.size)
	return mapped(out, launch(a.s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, out.data,
		a.data, ins[0].d, ins[0].m, b.data, ins[1].d, ins[1].m, c.data, ins[2].d, ins[2].m, d.data, ins[3].d, ins[3].m, span))
}
