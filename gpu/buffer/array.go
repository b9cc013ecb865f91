package buffer

import "github.com/hipgo/hipgo/rocr"

// Array is memory of T elements that a kernel can take as a `T*`: a
// device Buffer, a pinned Host buffer or Managed memory. Typed launchers take an Array, so
// either is accepted wherever the device can reach it; the launch checks
// that it can.
type Array[T any] interface {
	Object
	Ptr() rocr.Ptr[T]
}

var (
	_ Array[float32] = (*Buffer[float32])(nil)
	_ Array[float32] = (*Host[float32])(nil)
	_ Array[float32] = (*Managed[float32])(nil)
)
