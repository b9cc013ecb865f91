package cpu

import (
	"fmt"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// The cpu driver's own kernel SDK, kept one release for code written
// against it: every kernel is now a kernel.Kernel (package kernel), which
// runs on the cpu agent and whose Block carries what Group did. CHANGELOG
// lists each old name with its new one. Nothing else in the module uses
// these names (TestNoDeprecatedSDK).

// Group is a work-group as the deprecated Define's kernels see it.
//
// Deprecated: kernels take a *kernel.Block: Span, Items, BlockIdx,
// BlockDim, GridDim, GridSize, GridSync and Canceled are its methods, and
// it is the spi.MemoryView Ptr.At and Ptr.Slice take.
type Group = group

// Kernel is a Go kernel.
//
// Deprecated: use kernel.Kernel.
type Kernel = kernel.Kernel

// Set is a named collection of kernels.
//
// Deprecated: use kernel.Set.
type Set = kernel.Set

// Option configures a kernel at Define.
//
// Deprecated: use kernel.Option.
type Option = kernel.Option

// NewSet groups kernels into a set.
//
// Deprecated: use kernel.NewSet.
func NewSet(name string, ks ...*Kernel) *Set { return kernel.NewSet(name, ks...) }

// StaticShared declares n bytes of static group memory.
//
// Deprecated: use kernel.StaticShared.
func StaticShared(n uint32) Option { return kernel.StaticShared(n) }

// MaxThreads declares the kernel's largest work-group.
//
// Deprecated: use kernel.MaxThreads.
func MaxThreads(n int) Option { return kernel.MaxThreads(n) }

// Define registers a per-group Go kernel.
//
// Deprecated: use kernel.Define, whose function takes a *kernel.Block.
func Define[A any](name string, fn func(g *Group, a *A), opts ...Option) *Kernel {
	return kernel.Define(name, func(b *kernel.Block, a *A) { fn(kernelimpl.GroupOf(b).(*group), a) }, opts...)
}

// Span returns the range [lo, hi) of global work-item indexes this group
// covers in dimension dim, clipped to n and to the grid.
//
// Deprecated: use kernel.Block.Span.
func (g *group) Span(dim, n int) (lo, hi int) {
	lo = g.ID[dim] * g.Size[dim]
	hi = min(lo+g.Size[dim], g.Grid[dim], n)
	return min(lo, hi), hi
}

// Items is the number of work-items in this group along dim.
//
// Deprecated: use kernel.Block.Items.
func (g *group) Items(dim int) int {
	lo := g.ID[dim] * g.Size[dim]
	return min(lo+g.Size[dim], g.Grid[dim]) - lo
}

// Shared views group memory from byte offset off as n elements of T.
//
// Deprecated: use kernel.GroupShared.
func Shared[T any](g *Group, off, n int) []T {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), int(unsafe.Alignof(zero))
	if off < 0 || n < 0 || (size > 0 && n > (len(g.shared)-off)/size) || off > len(g.shared) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: fmt.Sprintf("group memory [%d, %d) outside the %d-byte group segment", off, off+size*n, len(g.shared))})
	}
	if off%align != 0 {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: fmt.Sprintf("group memory offset %d is not aligned to %d bytes for %T", off, align, zero)})
	}
	if n == 0 || size == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&g.shared[off])), n)
}

// SharedFloat32 views group memory from byte offset off as n float32s.
//
// Deprecated: use kernel.GroupShared[float32].
func SharedFloat32(g *Group, off, n int) []float32 { return Shared[float32](g, off, n) }

// Atomic is the element types the atomics take: HIP's atomicAdd,
// atomicCAS, atomicExch, atomicMin and atomicMax on int, unsigned int,
// long long, unsigned long long, float and double.
//
// Deprecated: use kernel.Atomic.
type Atomic interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// The atomics act on element i of the device memory p points at, checked
// as Ptr.At checks it; the element must be naturally aligned (device
// allocations are). Each returns the element's value before the operation,
// as HIP's do. They are atomic with respect to every work-item of every
// dispatch on the agent and to host code that uses sync/atomic on the same
// word.

// devicePtr is a kernel's pointer argument, rocr.Ptr[T]: the atomics
// take it as a type parameter, so that this package sees only the SPI.
type devicePtr[T any] interface {
	~uint64
	At(v spi.MemoryView, i int) *T
}

// Deprecated: use kernel.AtomicAdd(p.At(b, i), v).
//
// AtomicAdd adds v to element i (atomicAdd). Float adds are a
// compare-and-swap loop, as on GPUs without a native float atomic.
func AtomicAdd[T Atomic, P devicePtr[T]](g *Group, p P, i int, v T) T {
	addr := atomicAddr(g, p, i)
	if isFloat[T]() {
		return update(addr, func(old T) T { return old + v })
	}
	if unsafe.Sizeof(v) == 4 {
		n := atomic.AddUint32((*uint32)(addr), bits32(v))
		return fromBits32[T](n - bits32(v))
	}
	n := atomic.AddUint64((*uint64)(addr), bits64(v))
	return fromBits64[T](n - bits64(v))
}

// Deprecated: use kernel.AtomicCAS(p.At(b, i), expected, desired).
//
// AtomicCAS stores desired in element i if it holds expected (atomicCAS),
// comparing bits, and returns the value it held.
func AtomicCAS[T Atomic, P devicePtr[T]](g *Group, p P, i int, expected, desired T) T {
	addr := atomicAddr(g, p, i)
	if unsafe.Sizeof(expected) == 4 {
		for {
			old := atomic.LoadUint32((*uint32)(addr))
			if old != bits32(expected) {
				return fromBits32[T](old)
			}
			if atomic.CompareAndSwapUint32((*uint32)(addr), old, bits32(desired)) {
				return fromBits32[T](old)
			}
		}
	}
	for {
		old := atomic.LoadUint64((*uint64)(addr))
		if old != bits64(expected) {
			return fromBits64[T](old)
		}
		if atomic.CompareAndSwapUint64((*uint64)(addr), old, bits64(desired)) {
			return fromBits64[T](old)
		}
	}
}

// Deprecated: use kernel.AtomicExch(p.At(b, i), v).
//
// AtomicExch stores v in element i (atomicExch).
func AtomicExch[T Atomic, P devicePtr[T]](g *Group, p P, i int, v T) T {
	addr := atomicAddr(g, p, i)
	if unsafe.Sizeof(v) == 4 {
		return fromBits32[T](atomic.SwapUint32((*uint32)(addr), bits32(v)))
	}
	return fromBits64[T](atomic.SwapUint64((*uint64)(addr), bits64(v)))
}

// Deprecated: use kernel.AtomicMin(p.At(b, i), v).
//
// AtomicMin stores min(element i, v) in element i (atomicMin).
func AtomicMin[T Atomic, P devicePtr[T]](g *Group, p P, i int, v T) T {
	return update(atomicAddr(g, p, i), func(old T) T { return min(old, v) })
}

// Deprecated: use kernel.AtomicMax(p.At(b, i), v).
//
// AtomicMax stores max(element i, v) in element i (atomicMax).
func AtomicMax[T Atomic, P devicePtr[T]](g *Group, p P, i int, v T) T {
	return update(atomicAddr(g, p, i), func(old T) T { return max(old, v) })
}

// atomicAddr checks element i as Ptr.At does, and its alignment: a
// misaligned atomic is not atomic.
func atomicAddr[T Atomic, P devicePtr[T]](g *Group, p P, i int) unsafe.Pointer {
	addr := unsafe.Pointer(p.At(g, i))
	var zero T
	if uintptr(addr)%unsafe.Sizeof(zero) != 0 {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument,
			Msg: fmt.Sprintf("atomic on %T at %#x, which is not %d-byte aligned", zero, uintptr(addr), unsafe.Sizeof(zero))})
	}
	return addr
}

// update applies f by compare-and-swap until no other writer intervened.
func update[T Atomic](addr unsafe.Pointer, f func(T) T) T {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		for {
			old := atomic.LoadUint32((*uint32)(addr))
			v := fromBits32[T](old)
			if atomic.CompareAndSwapUint32((*uint32)(addr), old, bits32(f(v))) {
				return v
			}
		}
	}
	for {
		old := atomic.LoadUint64((*uint64)(addr))
		v := fromBits64[T](old)
		if atomic.CompareAndSwapUint64((*uint64)(addr), old, bits64(f(v))) {
			return v
		}
	}
}

// isFloat tells float32 and float64 from the integers: only they keep a half.
func isFloat[T Atomic]() bool {
	one := T(1)
	return one/2 != 0
}

func bits32[T Atomic](v T) uint32     { return *(*uint32)(unsafe.Pointer(&v)) }
func bits64[T Atomic](v T) uint64     { return *(*uint64)(unsafe.Pointer(&v)) }
func fromBits32[T Atomic](b uint32) T { return *(*T)(unsafe.Pointer(&b)) }
func fromBits64[T Atomic](b uint64) T { return *(*T)(unsafe.Pointer(&b)) }
