package buffer

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr"
)

// mem is what this package's memory types share: the core.Mem and the
// accessors over it. Each type embeds it as its first field, which keeps
// the Mem first (see core.MemOf).
type mem[T any] struct {
	m core.Mem // must stay the first field: see core.MemOf
	sealed
}

// Len is the number of elements (for a Pitched or Pitched3D, padding
// included).
func (b *mem[T]) Len() int { return b.m.Len() }

// Bytes is the size in bytes.
func (b *mem[T]) Bytes() int { return b.m.Size() }

// Device is the owning device: for a Host the device whose pool the memory
// came from, for a Managed the device whose driver allocated it.
func (b *mem[T]) Device() *gpu.Device { return b.m.Device() }

// Ptr is the device address (of the first row of a Pitched or Pitched3D)
// as a kernel argument; a Host's or Managed's is the same on every device.
func (b *mem[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](b.m.Addr()) }

func (b *mem[T]) String() string { return b.m.String() }
