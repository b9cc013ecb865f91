package rocr

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/spi"
)

// Ptr is a device address of T elements as a kernel receives it: 8 bytes in
// the kernarg segment, like a `T*` kernel parameter.
type Ptr[T any] uint64

func view(v spi.MemoryView, base, addr, size uintptr) unsafe.Pointer {
	if bv, ok := v.(spi.BoundedView); ok {
		return bv.ViewFrom(base, addr, size)
	}
	return v.View(addr, size)
}

// Slice returns elements [lo, hi) of the memory p points at.
func (p Ptr[T]) Slice(v spi.MemoryView, lo, hi int) []T {
	var zero T
	sz := unsafe.Sizeof(zero)
	if hi <= lo {
		if hi < lo || lo < 0 {
			badRange(v, uintptr(p), lo, hi, sz)
		}
		return nil
	}
	base := view(v, uintptr(p), uintptr(p)+uintptr(lo)*sz, uintptr(hi-lo)*sz)
	return unsafe.Slice((*T)(base), hi-lo)
}

// badRange fails the access to elements [lo, hi) through p, a range that
// is reversed or negative, before any address is computed from it.
func badRange(v spi.MemoryView, p uintptr, lo, hi int, sz uintptr) {
	if f, ok := v.(spi.Faulter); ok {
		why := fmt.Sprintf("the range is reversed (lo %d > hi %d)", lo, hi)
		if hi >= lo {
			why = "the range is negative"
		}
		f.Fault(fmt.Sprintf("elements [%d, %d) through pointer %#x: %s", lo, hi, p, why))
	}
	view(v, p, p+uintptr(lo)*sz, ^uintptr(0)) // a view that cannot say why reports the range as it can
}

// At returns a pointer to element i.
func (p Ptr[T]) At(v spi.MemoryView, i int) *T {
	var zero T
	sz := unsafe.Sizeof(zero)
	return (*T)(view(v, uintptr(p), uintptr(p)+uintptr(i)*sz, sz))
}

// Addr is the device address.
func (p Ptr[T]) Addr() uintptr { return uintptr(p) }

// ElemType is T, for loaders that check argument types at registration.
func (Ptr[T]) ElemType() reflect.Type { return reflect.TypeFor[T]() }

// ConstPtr is a Ptr the kernel only reads through, like a `const T*`
// parameter: the API orders a launch after a buffer's last writer only,
// so kernels that read one buffer on several queues run concurrently.
type ConstPtr[T any] uint64

// Slice returns elements [lo, hi) of the memory p points at; the kernel
// must not write them.
func (p ConstPtr[T]) Slice(v spi.MemoryView, lo, hi int) []T { return Ptr[T](p).Slice(v, lo, hi) }

// At returns a pointer to element i; the kernel must not write through it.
func (p ConstPtr[T]) At(v spi.MemoryView, i int) *T { return Ptr[T](p).At(v, i) }

// Addr is the device address.
func (p ConstPtr[T]) Addr() uintptr { return uintptr(p) }

// ElemType is T, for loaders that check argument types at registration.
func (ConstPtr[T]) ElemType() reflect.Type { return reflect.TypeFor[T]() }

// ReadOnly marks the pointer as read-only for loaders.
func (ConstPtr[T]) ReadOnly() bool { return true }
