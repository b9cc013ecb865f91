package buffer

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
)

// Buffer is device memory of n elements of T from the device's
// coarse-grained pool (hipMalloc). The host cannot touch it except by
// copying; it belongs to its device until Transfer.
type Buffer[T any] struct{ m Mem } // m must stay the first field: see MemOf

// New allocates n elements of T on dev.
func New[T any](dev *gpu.Device, n int) (*Buffer[T], error) {
	b := &Buffer[T]{}
	if err := initMem[T](&b.m, dev, n, false); err != nil {
		return nil, err
	}
	return b, nil
}

// FromSlice allocates a buffer on dev holding a copy of s.
func FromSlice[T any](dev *gpu.Device, s []T) (*Buffer[T], error) {
	b, err := New[T](dev, len(s))
	if err != nil {
		return nil, err
	}
	if err := b.CopyFrom(s); err != nil {
		_ = b.Free()
		return nil, err
	}
	return b, nil
}

// Mem returns the untyped core (Object).
func (b *Buffer[T]) Mem() *Mem {
	if b == nil {
		return nil
	}
	return &b.m
}

func (*Buffer[T]) isMem() {}

// Len is the number of elements.
func (b *Buffer[T]) Len() int { return b.m.n }

// Bytes is the size in bytes.
func (b *Buffer[T]) Bytes() int { return b.m.Size() }

// Device is the owning device.
func (b *Buffer[T]) Device() *gpu.Device { return b.m.Device() }

// Ptr is the device address as a kernel argument.
func (b *Buffer[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](b.m.Addr()) }

func (b *Buffer[T]) String() string { return b.m.String() }

// Free waits for pending work on the buffer and releases it (hipFree).
func (b *Buffer[T]) Free() error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "free", "nil buffer")
	}
	return b.m.Free()
}

// CopyFrom copies src into the buffer's first len(src) elements
// (hipMemcpy host to device).
func (b *Buffer[T]) CopyFrom(src []T) error { return b.CopyFromAt(0, src) }

// CopyFromAt copies src into elements [off, off+len(src)).
func (b *Buffer[T]) CopyFromAt(off int, src []T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "memcpy", "nil buffer")
	}
	return copyHost("memcpy host to device", &b.m, off, AsBytes(src), true)
}

// CopyTo copies the buffer's first len(dst) elements into dst (hipMemcpy
// device to host).
func (b *Buffer[T]) CopyTo(dst []T) error { return b.CopyToAt(0, dst) }

// CopyToAt copies elements [off, off+len(dst)) into dst.
func (b *Buffer[T]) CopyToAt(off int, dst []T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "memcpy", "nil buffer")
	}
	return copyHost("memcpy device to host", &b.m, off, AsBytes(dst), false)
}

// ToSlice copies the whole buffer into a new slice.
func (b *Buffer[T]) ToSlice() ([]T, error) {
	if b == nil {
		return nil, gpu.Errorf(gpu.ErrorInvalidValue, "memcpy", "nil buffer")
	}
	out := make([]T, b.m.n)
	return out, b.CopyTo(out)
}

// CopyFromBuffer copies all of src into the buffer (hipMemcpy device to
// device); the buffers must hold the same element type and src must fit.
func (b *Buffer[T]) CopyFromBuffer(src Object) error {
	if b == nil || src == nil || src.Mem() == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "memcpy", "nil buffer")
	}
	return CopyMem(&b.m, 0, src.Mem(), 0, src.Mem().Len())
}

// Fill sets every element to v (hipMemsetD8/D16/D32 and 64-bit patterns);
// T must be 1, 2, 4 or 8 bytes.
func (b *Buffer[T]) Fill(v T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "memset", "nil buffer")
	}
	pat, es, err := Pattern(v)
	if err != nil {
		return err
	}
	return fillMem(&b.m, 0, b.m.n, pat, es)
}

// Memset sets every byte to c (hipMemset).
func (b *Buffer[T]) Memset(c byte) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "memset", "nil buffer")
	}
	return fillMem(&b.m, 0, b.m.Size(), uint64(c), 1)
}

// Transfer makes dev the owner of the buffer after its pending work
// (hsa_memory_assign_agent). The buffer's memory does not move.
func (b *Buffer[T]) Transfer(dev *gpu.Device) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, "transfer", "nil buffer")
	}
	return b.m.Transfer(dev)
}

// Transfer makes dev the owner of the memory after its pending work.
func (m *Mem) Transfer(dev *gpu.Device) error {
	if err := m.Check("transfer"); err != nil {
		return err
	}
	if err := dev.Valid(); err != nil {
		return gpu.Wrap("transfer", err)
	}
	if err := m.Settle(); err != nil {
		return gpu.Wrap("transfer", err)
	}
	if err := m.alloc.Transfer(dev.Agent()); err != nil {
		return gpu.Wrap("transfer", err)
	}
	m.dev.Store(dev)
	return nil
}

// Pattern returns v's bytes as a fill pattern and its size.
func Pattern[T any](v T) (uint64, int, error) {
	es := int(unsafe.Sizeof(v))
	var pat uint64
	switch es {
	case 1:
		pat = uint64(*(*uint8)(unsafe.Pointer(&v)))
	case 2:
		pat = uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		pat = uint64(*(*uint32)(unsafe.Pointer(&v)))
	case 8:
		pat = *(*uint64)(unsafe.Pointer(&v))
	default:
		return 0, 0, gpu.Errorf(gpu.ErrorInvalidValue, "memset", "fill of %d-byte elements: want 1, 2, 4 or 8 bytes", es)
	}
	return pat, es, nil
}

// AsBytes views a slice of T as bytes, for copies.
func AsBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}
