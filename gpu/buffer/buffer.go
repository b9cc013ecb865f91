package buffer

import (
	"context"
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Object is device-visible memory of any element type: *Buffer[T] and
// *Host[T]. Stream copies and fills and kernel launches take it.
type Object interface {
	Len() int
	Bytes() int
	Device() *gpu.Device
	object // sealed: only hipgo's memory types are Objects
}

// object is the sealing method every memory type of hipgo has, by
// embedding sealed: core finds their memory from it (core.MemOf).
type object = core.Object

// sealed marks this package's memory types as Objects.
type sealed = core.Sealed

// Buffer is device memory of n elements of T from the device's
// coarse-grained pool (hipMalloc). The host cannot touch it except by
// copying; it belongs to its device until Transfer.
type Buffer[T any] struct {
	mem[T]
}

// New allocates n elements of T on dev. n = 0 gives an empty Buffer
// (Len 0, Ptr 0), as hipMalloc(0) gives a null pointer: every call takes
// it as empty (copies and fills of nothing, launches, Free), and a copy
// of any element into it is out of its bounds.
func New[T any](dev *gpu.Device, n int) (*Buffer[T], error) {
	b := &Buffer[T]{}
	if err := core.InitMem[T](&b.m, dev, n, false); err != nil {
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

// Free waits for pending work on the buffer and releases it (hipFree).
// Freeing a nil buffer does nothing and succeeds, as hipFree(nullptr) and
// C's free(NULL) do: a deferred Free after a failed New needs no check.
// A second Free of the same buffer is an error.
func (b *Buffer[T]) Free() error {
	if b == nil {
		return nil // as hipFree(nullptr)
	}
	return b.m.Free()
}

// CopyFrom copies src into the buffer's first len(src) elements
// (hipMemcpy host to device).
func (b *Buffer[T]) CopyFrom(src []T) error { return b.CopyFromAt(0, src) }

// CopyFromAt copies src into elements [off, off+len(src)).
func (b *Buffer[T]) CopyFromAt(off int, src []T) error {
	return b.CopyFromAtContext(context.Background(), off, src)
}

// CopyFromContext is CopyFrom that gives up when ctx is done before the
// copy starts, while it waits for the buffer's pending work: then it
// returns an error wrapping gpu.ErrNotReady and ctx's error, and has
// copied nothing. Once the copy has started it completes: the engine
// reads src to the end, and only then does the call return.
func (b *Buffer[T]) CopyFromContext(ctx context.Context, src []T) error {
	return b.CopyFromAtContext(ctx, 0, src)
}

// CopyFromAtContext is CopyFromAt with CopyFromContext's context.
func (b *Buffer[T]) CopyFromAtContext(ctx context.Context, off int, src []T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil buffer")
	}
	return core.CopyHostContext(ctx, "memcpy host to device", &b.m, off, core.AsBytes(src), true)
}

// CopyTo copies the buffer's first len(dst) elements into dst (hipMemcpy
// device to host).
func (b *Buffer[T]) CopyTo(dst []T) error { return b.CopyToAt(0, dst) }

// CopyToAt copies elements [off, off+len(dst)) into dst.
func (b *Buffer[T]) CopyToAt(off int, dst []T) error {
	return b.CopyToAtContext(context.Background(), off, dst)
}

// CopyToContext is CopyTo that gives up when ctx is done before the copy
// starts, while it waits for the work that writes the buffer: then it
// returns an error wrapping gpu.ErrNotReady and ctx's error, and dst is
// untouched. Once the copy has started it completes: dst holds the
// buffer's elements when the call returns.
func (b *Buffer[T]) CopyToContext(ctx context.Context, dst []T) error {
	return b.CopyToAtContext(ctx, 0, dst)
}

// CopyToAtContext is CopyToAt with CopyToContext's context.
func (b *Buffer[T]) CopyToAtContext(ctx context.Context, off int, dst []T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil buffer")
	}
	return core.CopyHostContext(ctx, "memcpy device to host", &b.m, off, core.AsBytes(dst), false)
}

// ToSlice copies the whole buffer into a new slice; nil with the error
// when the copy fails.
func (b *Buffer[T]) ToSlice() ([]T, error) { return b.ToSliceContext(context.Background()) }

// ToSliceContext is ToSlice with CopyToContext's context: nil with the
// error when it gives up.
func (b *Buffer[T]) ToSliceContext(ctx context.Context) ([]T, error) {
	if b == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil buffer")
	}
	out := make([]T, b.m.Len())
	if err := b.CopyToContext(ctx, out); err != nil {
		return nil, err
	}
	return out, nil
}

// CopyFromBuffer copies all of src into the buffer (hipMemcpy device to
// device); the buffers must hold the same element type and src must fit.
func (b *Buffer[T]) CopyFromBuffer(src Object) error {
	sm, _ := core.MemOf(src)
	if b == nil || sm == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil buffer")
	}
	return core.CopyMem(&b.m, 0, sm, 0, sm.Len())
}

// Copy copies n elements from src[srcOff:] to dst[dstOff:] and returns
// when they are there (hipMemcpy of any kind but host memory: device to
// device, device to host buffer, across devices). The element types must
// agree. Memory of two devices without peer access is staged through the
// host.
func Copy(dst Object, dstOff int, src Object, srcOff, n int) error {
	dm, _ := core.MemOf(dst)
	sm, _ := core.MemOf(src)
	return core.CopyMem(dm, dstOff, sm, srcOff, n)
}

// Fill sets every element to v (hipMemsetD8/D16/D32 and 64-bit patterns);
// T must be 1, 2, 4 or 8 bytes.
func (b *Buffer[T]) Fill(v T) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset", "nil buffer")
	}
	pat, es, err := core.Pattern(v)
	if err != nil {
		return err
	}
	return core.FillMem(&b.m, 0, b.m.Len(), pat, es)
}

// Memset sets every byte to c (hipMemset).
func (b *Buffer[T]) Memset(c byte) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset", "nil buffer")
	}
	return core.FillMem(&b.m, 0, b.m.Size(), uint64(c), 1)
}

// Transfer makes dev the owner of the buffer after its pending work
// (hsa_memory_assign_agent). The buffer's memory does not move.
func (b *Buffer[T]) Transfer(dev *gpu.Device) error {
	if b == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "transfer", "nil buffer")
	}
	return b.m.Transfer(dev)
}

// SetManualDeps makes the program responsible for ordering the buffer's uses
// on different streams (with events, as in HIP): no BARRIER_AND is
// inserted for it. Free and synchronous copies still wait for its work.
func (b *Buffer[T]) SetManualDeps(on bool) { b.base().SetManual(on) }
