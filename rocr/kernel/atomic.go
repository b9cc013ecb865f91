package kernel

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Atomic is what the atomic operations act on.
type Atomic interface {
	int32 | uint32 | int64 | uint64 | int | uint | float32 | float64
}

// Integer is what the bitwise atomics act on.
type Integer interface {
	int32 | uint32 | int64 | uint64 | int | uint
}

// atomicAligned fails an atomic on a misaligned element, which would not be
// atomic: only memory reached through unsafe (a rocr.Ptr moved off its
// element size) can be.
func atomicAligned[T Atomic](p *T) {
	if uintptr(unsafe.Pointer(p))%unsafe.Sizeof(*p) != 0 {
		misaligned(p)
	}
}

func misaligned[T Atomic](p *T) {
	panic(fmt.Errorf("atomic on %T at %#x, which is not %d-byte aligned", *new(T), uintptr(unsafe.Pointer(p)), unsafe.Sizeof(*p)))
}

// rmw applies op to *p atomically and returns the old value.
func rmw[T Atomic](p *T, op func(old T) T) T {
	atomicAligned(p)
	if unsafe.Sizeof(*p) == 4 {
		u := (*uint32)(unsafe.Pointer(p))
		for {
			o := atomic.LoadUint32(u)
			old := *(*T)(unsafe.Pointer(&o))
			n := op(old)
			if atomic.CompareAndSwapUint32(u, o, *(*uint32)(unsafe.Pointer(&n))) {
				return old
			}
		}
	}
	u := (*uint64)(unsafe.Pointer(p))
	for {
		o := atomic.LoadUint64(u)
		old := *(*T)(unsafe.Pointer(&o))
		n := op(old)
		if atomic.CompareAndSwapUint64(u, o, *(*uint64)(unsafe.Pointer(&n))) {
			return old
		}
	}
}

// AtomicAdd adds v to *p and returns the old value (atomicAdd).
func AtomicAdd[T Atomic](p *T, v T) T {
	atomicAligned(p)
	switch q := any(p).(type) {
	case *int32:
		return T(atomic.AddInt32(q, int32(v)) - int32(v))
	case *uint32:
		return T(atomic.AddUint32(q, uint32(v)) - uint32(v))
	case *int64:
		return T(atomic.AddInt64(q, int64(v)) - int64(v))
	case *uint64:
		return T(atomic.AddUint64(q, uint64(v)) - uint64(v))
	}
	return rmw(p, func(o T) T { return o + v })
}

// AtomicSub subtracts v from *p and returns the old value (atomicSub).
func AtomicSub[T Atomic](p *T, v T) T { return rmw(p, func(o T) T { return o - v }) }

// AtomicMax stores max(*p, v) and returns the old value (atomicMax). A NaN
// is never stored over a number.
func AtomicMax[T Atomic](p *T, v T) T {
	return rmw(p, func(o T) T {
		if v > o {
			return v
		}
		return o
	})
}

// AtomicMin stores min(*p, v) and returns the old value (atomicMin).
func AtomicMin[T Atomic](p *T, v T) T {
	return rmw(p, func(o T) T {
		if v < o {
			return v
		}
		return o
	})
}

// AtomicExch stores v and returns the old value (atomicExch).
func AtomicExch[T Atomic](p *T, v T) T { return rmw(p, func(T) T { return v }) }

// AtomicCAS stores v if *p equals cmp, and returns the old value
// (atomicCAS). Floats compare by their bits.
func AtomicCAS[T Atomic](p *T, cmp, v T) T {
	atomicAligned(p)
	if unsafe.Sizeof(*p) == 4 {
		u := (*uint32)(unsafe.Pointer(p))
		c, n := *(*uint32)(unsafe.Pointer(&cmp)), *(*uint32)(unsafe.Pointer(&v))
		for {
			o := atomic.LoadUint32(u)
			if o != c || atomic.CompareAndSwapUint32(u, o, n) {
				return *(*T)(unsafe.Pointer(&o))
			}
		}
	}
	u := (*uint64)(unsafe.Pointer(p))
	c, n := *(*uint64)(unsafe.Pointer(&cmp)), *(*uint64)(unsafe.Pointer(&v))
	for {
		o := atomic.LoadUint64(u)
		if o != c || atomic.CompareAndSwapUint64(u, o, n) {
			return *(*T)(unsafe.Pointer(&o))
		}
	}
}

// AtomicAnd stores *p & v and returns the old value (atomicAnd).
func AtomicAnd[T Integer](p *T, v T) T { return rmwInt(p, func(o T) T { return o & v }) }

// AtomicOr stores *p | v and returns the old value (atomicOr).
func AtomicOr[T Integer](p *T, v T) T { return rmwInt(p, func(o T) T { return o | v }) }

// AtomicXor stores *p ^ v and returns the old value (atomicXor).
func AtomicXor[T Integer](p *T, v T) T { return rmwInt(p, func(o T) T { return o ^ v }) }

func rmwInt[T Integer](p *T, op func(T) T) T {
	switch q := any(p).(type) {
	case *int32:
		return T(rmw(q, func(o int32) int32 { return int32(op(T(o))) }))
	case *uint32:
		return T(rmw(q, func(o uint32) uint32 { return uint32(op(T(o))) }))
	case *int64:
		return T(rmw(q, func(o int64) int64 { return int64(op(T(o))) }))
	case *uint64:
		return T(rmw(q, func(o uint64) uint64 { return uint64(op(T(o))) }))
	case *int:
		return T(rmw(q, func(o int) int { return int(op(T(o))) }))
	}
	u := (*uint)(unsafe.Pointer(p))
	return T(rmw(u, func(o uint) uint { return uint(op(T(o))) }))
}
