package cpu

import (
	"fmt"

	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
)

// Atomic is the element types the atomics take: HIP's atomicAdd,
// atomicCAS, atomicExch, atomicMin and atomicMax on int, unsigned int,
// long long, unsigned long long, float and double.
type Atomic interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// The atomics act on element i of the device memory p points at, checked
// as Ptr.At checks it; the element must be naturally aligned (device
// allocations are). Each returns the element's value before the operation,
// as HIP's do. They are atomic with respect to every work-item of every
// dispatch on the agent and to host code that uses sync/atomic on the same
// word.

// AtomicAdd adds v to element i (atomicAdd). Float adds are a
// compare-and-swap loop, as on GPUs without a native float atomic.
func AtomicAdd[T Atomic](g *Group, p rocr.Ptr[T], i int, v T) T {
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

// AtomicCAS stores desired in element i if it holds expected (atomicCAS),
// comparing bits, and returns the value it held.
func AtomicCAS[T Atomic](g *Group, p rocr.Ptr[T], i int, expected, desired T) T {
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

// AtomicExch stores v in element i (atomicExch).
func AtomicExch[T Atomic](g *Group, p rocr.Ptr[T], i int, v T) T {
	addr := atomicAddr(g, p, i)
	if unsafe.Sizeof(v) == 4 {
		return fromBits32[T](atomic.SwapUint32((*uint32)(addr), bits32(v)))
	}
	return fromBits64[T](atomic.SwapUint64((*uint64)(addr), bits64(v)))
}

// AtomicMin stores min(element i, v) in element i (atomicMin).
func AtomicMin[T Atomic](g *Group, p rocr.Ptr[T], i int, v T) T {
	return update(atomicAddr(g, p, i), func(old T) T { return min(old, v) })
}

// AtomicMax stores max(element i, v) in element i (atomicMax).
func AtomicMax[T Atomic](g *Group, p rocr.Ptr[T], i int, v T) T {
	return update(atomicAddr(g, p, i), func(old T) T { return max(old, v) })
}

// atomicAddr checks element i as Ptr.At does, and its alignment: a
// misaligned atomic is not atomic.
func atomicAddr[T Atomic](g *Group, p rocr.Ptr[T], i int) unsafe.Pointer {
	addr := unsafe.Pointer(p.At(g, i))
	var zero T
	if uintptr(addr)%unsafe.Sizeof(zero) != 0 {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: rocr.ErrInvalidArgument,
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
