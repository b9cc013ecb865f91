package prim

import (
	"fmt"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/gpu/internal/instance"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// ReduceFunc is ReduceWith's operation: a functor, a package-level
// struct type without fields whose value methods are Go device functions
// (the kernel subset of docs/go-kernels.md). Apply must be associative
// and commutative (the reduction combines in an order of its own), and
// Identity its identity: Apply(Identity(), x) == x.
type ReduceFunc[T Number] interface {
	Apply(a, b T) T
	Identity() T
}

// ReduceLaunch is the launcher hipgo-gen writes for an instance of
// ReduceWith: out[b] = block b's elements of in combined from Identity;
// span 0 is a grid-stride loop (GPUs), span > 0 gives block b the
// elements [b*span, (b+1)*span) (the cpu agent, blocks of one work-item).
type ReduceLaunch[T Number] = func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out buffer.Array[T], span int) error

// reduceKey is the registry key of ReduceWith's instance for F and T;
// cpuReduceKey the cpu agent's own kernel's.
type (
	reduceKey[F any, T Number]    struct{}
	cpuReduceKey[F any, T Number] struct{}
)

var reducers instance.Registry

// RegisterReduceWith registers the launcher of ReduceWith's instance for
// F; the code hipgo-gen writes calls it at init. A second registration
// of one instance panics.
func RegisterReduceWith[F ReduceFunc[T], T Number](launch ReduceLaunch[T]) {
	reducers.Add(any((*reduceKey[F, T])(nil)), launch)
}

// cpuFallback lets the cpu agent run an operation hipgo-gen has not
// instantiated; tests turn it off to see the GPU's error.
var cpuFallback = true

// ReduceWith queues out[0] = in's elements combined by op, from
// op.Identity() (cub::DeviceReduce::Reduce with a custom operation). Like
// Reduce, an input of up to 2^16 elements is one launch on a GPU, a
// larger one two. The kernel is the one hipgo-gen writes into the
// calling package's hipgo_inst_gen.go (go generate); on a GPU without it
// the call is an error wrapping gpu.ErrNotSupported, while the cpu agent
// calls op's methods from Go.
func ReduceWith[F ReduceFunc[T], T Number](s *stream.Stream, op F, in, out buffer.Array[T]) (err error) {
	const name = "prim reduce with"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, 1); err != nil {
		return err
	}
	if unsafe.Sizeof(op) != 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "operation %T has fields: a functor is a struct type without fields", op)
	}
	launch, ok := reduceLauncher[F, T](s)
	if !ok {
		return gpu.Errorf(gpu.ErrNotSupported, name, "no kernel for [%T, %T] on %s: run go generate in the package that declares the operation and calls ReduceWith with it, after a line //go:generate go run github.com/hipgo/hipgo/cmd/hipgo-gen -go . -o kernels_gen.go (it writes hipgo_inst_gen.go)", op, *new(T), s.Device())
	}
	n := in.Len()
	g := shapeOf(s)
	var grid, block, span int
	if g.cpu {
		grid, span = g.split(n, 1<<15)
		block = 1
	} else {
		if n <= smallN {
			return launch(s, gpu.D1(1), gpu.D1(smallBlock), 0, in, out, 0)
		}
		grid, block = min(ceilDiv(n, blockSize*16), 8*g.sms), blockSize
	}
	if grid == 1 {
		return launch(s, gpu.D1(1), gpu.D1(uint32(block)), 0, in, out, span)
	}
	tmp, err := scratch[T](s, grid)
	if err != nil {
		return err
	}
	defer free(s, tmp, &err)
	if err = launch(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, in, tmp, span); err != nil {
		return err
	}
	if g.cpu {
		return launch(s, gpu.D1(1), gpu.D1(1), 0, tmp, out, grid)
	}
	return launch(s, gpu.D1(1), gpu.D1(smallBlock), 0, tmp, out, 0)
}

// reduceLauncher is ReduceWith's launcher for F and T: the registered
// one, or on the cpu agent its own (made once).
func reduceLauncher[F ReduceFunc[T], T Number](s *stream.Stream) (ReduceLaunch[T], bool) {
	if v, ok := reducers.Lookup(any((*reduceKey[F, T])(nil))); ok {
		return v.(ReduceLaunch[T]), true
	}
	if !cpuFallback || !s.Device().Properties().IsCPU {
		return nil, false
	}
	if v, ok := reducers.Lookup(any((*cpuReduceKey[F, T])(nil))); ok {
		return v.(ReduceLaunch[T]), true
	}
	return reducers.LoadOrAdd(any((*cpuReduceKey[F, T])(nil)), newCPUReduce[F, T]()).(ReduceLaunch[T]), true
}

type reduceWithArgs[T any] struct {
	in   rocr.ConstPtr[T]
	n    int64
	out  rocr.Ptr[T]
	span int64
}

// newCPUReduce is the cpu agent's ReduceWith kernel for F and T, a
// library of its own: one work-item per block folds its span.
func newCPUReduce[F ReduceFunc[T], T Number]() ReduceLaunch[T] {
	const kname = "prim_reduce_with"
	k := kernel.Define(kname, func(b *kernel.Block, a *reduceWithArgs[T]) {
		var op F
		in := kernelimpl.ConstView(b, a.in, a.n)
		out := kernelimpl.ViewRest(b, a.out)
		bi := b.BlockIdx().X
		lo := min(int64(bi)*a.span, a.n)
		acc := op.Identity()
		for _, x := range in[lo:min(lo+a.span, a.n)] {
			acc = op.Apply(acc, x)
		}
		out[bi] = acc
	})
	lib := gokernel.New(gokernel.Spec{Name: fmt.Sprintf("prim reduce with %T", *new(F)), Set: kernel.NewSet(kname, k), Kernels: []string{kname}})
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, in, out buffer.Array[T], span int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		var args module.Args
		args.ConstPtr(in).Int64(int64(in.Len())).Ptr(out).Int64(int64(span))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}
