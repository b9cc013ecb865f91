package array

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// The cpu agent's Map kernels, made on first use for each operation and
// type: the same kernel hipgo-gen writes, with Apply called from Go, so a
// program runs on the cpu agent before (or without) go generate. Each is
// a library of one Go kernel (gokernel), loaded on the cpu agent only.

// mapAt is where an input is read for the result's element i (Map1Launch).
func mapAt(i, d, m int64) int64 {
	if m == 1 {
		return 0
	}
	if d == 0 {
		return i
	}
	return i / d % m
}

// mapView is an input of a cpu Map kernel: the elements it reads.
func mapView[T any](b *kernel.Block, p rocr.ConstPtr[T], n, d, m int64) []T {
	if d != 0 || m == 1 {
		n = m
	}
	return kernelimpl.ConstView(b, p, n)
}

// mapSpan is block b's elements of n, span each.
func mapSpan(b *kernel.Block, n, span int64) (lo, hi int64) {
	lo = min(int64(b.BlockIdx().X)*span, n)
	return lo, min(lo+span, n)
}

// cpuMap is a cpu Map kernel as a library of its own.
func cpuMap(name string, k *kernel.Kernel) *gokernel.Library {
	return gokernel.New(gokernel.Spec{Name: name, Set: kernel.NewSet(name, k), Kernels: []string{name}})
}

type map1Args[R, X1 any] struct {
	out    rocr.Ptr[R]
	n      int64
	x1     rocr.ConstPtr[X1]
	d1, m1 int64
	span   int64
}

func newCPUMap1[F Func1[R, X1], R, X1 Number]() Map1Launch[R, X1] {
	const name = "array_map1"
	lib := cpuMap(name, kernel.Define(name, func(b *kernel.Block, a *map1Args[R, X1]) {
		var op F
		out := kernelimpl.View(b, a.out, a.n)
		x1 := mapView(b, a.x1, a.n, a.d1, a.m1)
		lo, hi := mapSpan(b, a.n, a.span)
		if a.d1 == 0 && a.m1 != 1 {
			for i := lo; i < hi; i++ {
				out[i] = op.Apply(x1[i])
			}
			return
		}
		for i := lo; i < hi; i++ {
			out[i] = op.Apply(x1[mapAt(i, a.d1, a.m1)])
		}
	}))
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, span int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		var args module.Args
		args.Ptr(out).Int64(int64(out.Len())).ConstPtr(x1).Int64(int64(d1)).Int64(int64(m1)).Int64(int64(span))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}

type map2Args[R, X1, X2 any] struct {
	out    rocr.Ptr[R]
	n      int64
	x1     rocr.ConstPtr[X1]
	d1, m1 int64
	x2     rocr.ConstPtr[X2]
	d2, m2 int64
	span   int64
}

func newCPUMap2[F Func2[R, X1, X2], R, X1, X2 Number]() Map2Launch[R, X1, X2] {
	const name = "array_map2"
	lib := cpuMap(name, kernel.Define(name, func(b *kernel.Block, a *map2Args[R, X1, X2]) {
		var op F
		out := kernelimpl.View(b, a.out, a.n)
		x1 := mapView(b, a.x1, a.n, a.d1, a.m1)
		x2 := mapView(b, a.x2, a.n, a.d2, a.m2)
		lo, hi := mapSpan(b, a.n, a.span)
		if a.d1 == 0 && a.m1 != 1 && a.d2 == 0 && a.m2 != 1 {
			for i := lo; i < hi; i++ {
				out[i] = op.Apply(x1[i], x2[i])
			}
			return
		}
		for i := lo; i < hi; i++ {
			out[i] = op.Apply(x1[mapAt(i, a.d1, a.m1)], x2[mapAt(i, a.d2, a.m2)])
		}
	}))
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, span int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		var args module.Args
		args.Ptr(out).Int64(int64(out.Len())).ConstPtr(x1).Int64(int64(d1)).Int64(int64(m1)).ConstPtr(x2).Int64(int64(d2)).Int64(int64(m2)).Int64(int64(span))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}

type map3Args[R, X1, X2, X3 any] struct {
	out    rocr.Ptr[R]
	n      int64
	x1     rocr.ConstPtr[X1]
	d1, m1 int64
	x2     rocr.ConstPtr[X2]
	d2, m2 int64
	x3     rocr.ConstPtr[X3]
	d3, m3 int64
	span   int64
}

func newCPUMap3[F Func3[R, X1, X2, X3], R, X1, X2, X3 Number]() Map3Launch[R, X1, X2, X3] {
	const name = "array_map3"
	lib := cpuMap(name, kernel.Define(name, func(b *kernel.Block, a *map3Args[R, X1, X2, X3]) {
		var op F
		out := kernelimpl.View(b, a.out, a.n)
		x1 := mapView(b, a.x1, a.n, a.d1, a.m1)
		x2 := mapView(b, a.x2, a.n, a.d2, a.m2)
		x3 := mapView(b, a.x3, a.n, a.d3, a.m3)
		lo, hi := mapSpan(b, a.n, a.span)
		if a.d1 == 0 && a.m1 != 1 && a.d2 == 0 && a.m2 != 1 && a.d3 == 0 && a.m3 != 1 {
			for i := lo; i < hi; i++ {
				out[i] = op.Apply(x1[i], x2[i], x3[i])
			}
			return
		}
		for i := lo; i < hi; i++ {
			out[i] = op.Apply(x1[mapAt(i, a.d1, a.m1)], x2[mapAt(i, a.d2, a.m2)], x3[mapAt(i, a.d3, a.m3)])
		}
	}))
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, x3 buffer.Array[X3], d3, m3 int, span int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		var args module.Args
		args.Ptr(out).Int64(int64(out.Len())).ConstPtr(x1).Int64(int64(d1)).Int64(int64(m1)).ConstPtr(x2).Int64(int64(d2)).Int64(int64(m2)).ConstPtr(x3).Int64(int64(d3)).Int64(int64(m3)).Int64(int64(span))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}

type map4Args[R, X1, X2, X3, X4 any] struct {
	out    rocr.Ptr[R]
	n      int64
	x1     rocr.ConstPtr[X1]
	d1, m1 int64
	x2     rocr.ConstPtr[X2]
	d2, m2 int64
	x3     rocr.ConstPtr[X3]
	d3, m3 int64
	x4     rocr.ConstPtr[X4]
	d4, m4 int64
	span   int64
}

func newCPUMap4[F Func4[R, X1, X2, X3, X4], R, X1, X2, X3, X4 Number]() Map4Launch[R, X1, X2, X3, X4] {
	const name = "array_map4"
	lib := cpuMap(name, kernel.Define(name, func(b *kernel.Block, a *map4Args[R, X1, X2, X3, X4]) {
		var op F
		out := kernelimpl.View(b, a.out, a.n)
		x1 := mapView(b, a.x1, a.n, a.d1, a.m1)
		x2 := mapView(b, a.x2, a.n, a.d2, a.m2)
		x3 := mapView(b, a.x3, a.n, a.d3, a.m3)
		x4 := mapView(b, a.x4, a.n, a.d4, a.m4)
		lo, hi := mapSpan(b, a.n, a.span)
		if a.d1 == 0 && a.m1 != 1 && a.d2 == 0 && a.m2 != 1 && a.d3 == 0 && a.m3 != 1 && a.d4 == 0 && a.m4 != 1 {
			for i := lo; i < hi; i++ {
				out[i] = op.Apply(x1[i], x2[i], x3[i], x4[i])
			}
			return
		}
		for i := lo; i < hi; i++ {
			out[i] = op.Apply(x1[mapAt(i, a.d1, a.m1)], x2[mapAt(i, a.d2, a.m2)], x3[mapAt(i, a.d3, a.m3)], x4[mapAt(i, a.d4, a.m4)])
		}
	}))
	return func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[R], x1 buffer.Array[X1], d1, m1 int, x2 buffer.Array[X2], d2, m2 int, x3 buffer.Array[X3], d3, m3 int, x4 buffer.Array[X4], d4, m4 int, span int) error {
		ld, _, err := lib.Prepare(s, 0)
		if err != nil {
			return err
		}
		var args module.Args
		args.Ptr(out).Int64(int64(out.Len())).ConstPtr(x1).Int64(int64(d1)).Int64(int64(m1)).ConstPtr(x2).Int64(int64(d2)).Int64(int64(m2)).ConstPtr(x3).Int64(int64(d3)).Int64(int64(m3)).ConstPtr(x4).Int64(int64(d4)).Int64(int64(m4)).Int64(int64(span))
		return ld.Launch(s, 0, false, grid, block, sharedMem, &args)
	}
}
