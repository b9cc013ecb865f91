package buffer

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr"
)

// mem is what this package's memory types share: the core.Mem, which
// core.MemOf finds wherever a type embeds it.
//
// The accessors are declared on each type rather than promoted from mem:
// a promoted method called on a nil *Buffer panics before it runs, and
// these answer zero values for a nil receiver instead.
type mem[T any] struct {
	m core.Mem
	sealed
}

// base is the Mem of b, nil for a nil b.
func (b *Buffer[T]) base() *core.Mem {
	if b == nil {
		return nil
	}
	return &b.m
}

func (h *Host[T]) base() *core.Mem {
	if h == nil {
		return nil
	}
	return &h.m
}

func (m *Managed[T]) base() *core.Mem {
	if m == nil {
		return nil
	}
	return &m.m
}

func (p *Pitched[T]) base() *core.Mem {
	if p == nil {
		return nil
	}
	return &p.m
}

func (p *Pitched3D[T]) base() *core.Mem {
	if p == nil {
		return nil
	}
	return &p.m
}

// Len is the number of elements; 0 for a nil buffer.
func (b *Buffer[T]) Len() int { return b.base().Len() }

// Bytes is the size in bytes; 0 for a nil buffer.
func (b *Buffer[T]) Bytes() int { return b.base().Size() }

// Device is the owning device; nil for a nil buffer.
func (b *Buffer[T]) Device() *gpu.Device { return b.base().Device() }

// Ptr is the device address as a kernel argument; 0 for a nil buffer.
func (b *Buffer[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](b.base().Addr()) }

func (b *Buffer[T]) String() string { return b.base().String() }

// Len is the number of elements; 0 for a nil buffer.
func (h *Host[T]) Len() int { return h.base().Len() }

// Bytes is the size in bytes; 0 for a nil buffer.
func (h *Host[T]) Bytes() int { return h.base().Size() }

// Device is the device whose pool the memory came from; nil for a nil
// buffer.
func (h *Host[T]) Device() *gpu.Device { return h.base().Device() }

// Ptr is the address as a kernel argument, the same on every device; 0
// for a nil buffer.
func (h *Host[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](h.base().Addr()) }

func (h *Host[T]) String() string { return h.base().String() }

// Len is the number of elements; 0 for a nil buffer.
func (m *Managed[T]) Len() int { return m.base().Len() }

// Bytes is the size in bytes; 0 for a nil buffer.
func (m *Managed[T]) Bytes() int { return m.base().Size() }

// Device is the device whose driver allocated the memory; nil for a nil
// buffer.
func (m *Managed[T]) Device() *gpu.Device { return m.base().Device() }

// Ptr is the address as a kernel argument, the same on every device; 0
// for a nil buffer.
func (m *Managed[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](m.base().Addr()) }

func (m *Managed[T]) String() string { return m.base().String() }

// Len is the number of elements, padding included; 0 for a nil buffer.
func (p *Pitched[T]) Len() int { return p.base().Len() }

// Bytes is the size in bytes; 0 for a nil buffer.
func (p *Pitched[T]) Bytes() int { return p.base().Size() }

// Device is the owning device; nil for a nil buffer.
func (p *Pitched[T]) Device() *gpu.Device { return p.base().Device() }

// Ptr is the device address of the first row as a kernel argument; 0 for
// a nil buffer.
func (p *Pitched[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](p.base().Addr()) }

func (p *Pitched[T]) String() string { return p.base().String() }

// Len is the number of elements, padding included; 0 for a nil buffer.
func (p *Pitched3D[T]) Len() int { return p.base().Len() }

// Bytes is the size in bytes; 0 for a nil buffer.
func (p *Pitched3D[T]) Bytes() int { return p.base().Size() }

// Device is the owning device; nil for a nil buffer.
func (p *Pitched3D[T]) Device() *gpu.Device { return p.base().Device() }

// Ptr is the device address of the first row as a kernel argument; 0 for
// a nil buffer.
func (p *Pitched3D[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](p.base().Addr()) }

func (p *Pitched3D[T]) String() string { return p.base().String() }
