package buffer

import (
	"context"
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr"
)

// Sub is a view of elements [off, off+n) of a buffer: what `d_data + off`
// is in CUDA and HIP, and a sub-buffer in OpenCL. It is accepted wherever
// the buffer is (kernel arguments, typed launchers, copies, fills, blas,
// graph nodes), passes its own address, and is checked against its own
// bounds. Dependencies are tracked by byte range: work on disjoint views
// of one buffer, on different streams, runs concurrently; overlapping
// ones order as uses of the whole buffer do (a read after a write, a
// write after a read or a write), and reads share.
//
// A view has no memory of its own: it fails as its buffer does once that
// is freed, and it is never freed itself. A range outside the buffer
// gives a view whose every use fails with the reason (Err).
type Sub[T any] struct {
	mem[T]
}

func sub[T any](m *core.Mem, off, n int) *Sub[T] {
	v := &Sub[T]{}
	if m == nil {
		m = &core.Mem{}
	}
	m.View(&v.m, off, n)
	return v
}

// Sub is a view of elements [off, off+n) of b.
func (b *Buffer[T]) Sub(off, n int) *Sub[T] { return sub[T](b.base(), off, n) }

// Sub is a view of elements [off, off+n) of h.
func (h *Host[T]) Sub(off, n int) *Sub[T] { return sub[T](h.base(), off, n) }

// Sub is a view of elements [off, off+n) of m.
func (m *Managed[T]) Sub(off, n int) *Sub[T] { return sub[T](m.base(), off, n) }

// Sub is a view of elements [off, off+n) of v: of the same buffer,
// starting off elements into v.
func (v *Sub[T]) Sub(off, n int) *Sub[T] { return sub[T](v.base(), off, n) }

func (v *Sub[T]) base() *core.Mem {
	if v == nil {
		return nil
	}
	return &v.m
}

// Err is why the view could not be made (its range is outside the
// buffer); nil for a good view. The view's buffer being freed later is
// not reported here but by the calls that use it.
func (v *Sub[T]) Err() error {
	if v == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "view", "nil view")
	}
	return v.m.ViewErr()
}

// Len is the number of elements; 0 for a nil view.
func (v *Sub[T]) Len() int { return v.base().Len() }

// Bytes is the size in bytes; 0 for a nil view.
func (v *Sub[T]) Bytes() int { return v.base().Size() }

// Device is the buffer's device; nil for a nil view.
func (v *Sub[T]) Device() *gpu.Device { return v.base().Device() }

// Ptr is the address of the view's first element as a kernel argument;
// 0 for a nil or invalid view.
func (v *Sub[T]) Ptr() rocr.Ptr[T] { return rocr.Ptr[T](v.base().Addr()) }

func (v *Sub[T]) String() string { return v.base().String() }

// CopyFrom copies src into the view's first len(src) elements.
func (v *Sub[T]) CopyFrom(src []T) error { return v.CopyFromAt(0, src) }

// CopyFromAt copies src into the view's elements [off, off+len(src)).
func (v *Sub[T]) CopyFromAt(off int, src []T) error {
	return v.CopyFromAtContext(context.Background(), off, src)
}

// CopyFromContext is CopyFrom that gives up when ctx is done before the
// copy starts, as Buffer.CopyFromContext does.
func (v *Sub[T]) CopyFromContext(ctx context.Context, src []T) error {
	return v.CopyFromAtContext(ctx, 0, src)
}

// CopyFromAtContext is CopyFromAt with CopyFromContext's context.
func (v *Sub[T]) CopyFromAtContext(ctx context.Context, off int, src []T) error {
	if v == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil view")
	}
	return core.CopyHostContext(ctx, "memcpy host to device", &v.m, off, core.AsBytes(src), true)
}

// CopyTo copies the view's first len(dst) elements into dst.
func (v *Sub[T]) CopyTo(dst []T) error { return v.CopyToAt(0, dst) }

// CopyToAt copies the view's elements [off, off+len(dst)) into dst.
func (v *Sub[T]) CopyToAt(off int, dst []T) error {
	return v.CopyToAtContext(context.Background(), off, dst)
}

// CopyToContext is CopyTo that gives up when ctx is done before the copy
// starts, as Buffer.CopyToContext does: then dst is untouched.
func (v *Sub[T]) CopyToContext(ctx context.Context, dst []T) error {
	return v.CopyToAtContext(ctx, 0, dst)
}

// CopyToAtContext is CopyToAt with CopyToContext's context.
func (v *Sub[T]) CopyToAtContext(ctx context.Context, off int, dst []T) error {
	if v == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil view")
	}
	return core.CopyHostContext(ctx, "memcpy device to host", &v.m, off, core.AsBytes(dst), false)
}

// ToSlice copies the view into a new slice.
func (v *Sub[T]) ToSlice() ([]T, error) {
	if v == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "nil view")
	}
	out := make([]T, v.m.Len())
	if err := v.CopyTo(out); err != nil {
		return nil, err
	}
	return out, nil
}

// Fill sets every element of the view to v; T must be 1, 2, 4 or 8 bytes.
func (v *Sub[T]) Fill(x T) error {
	if v == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset", "nil view")
	}
	pat, es, err := core.Pattern(x)
	if err != nil {
		return err
	}
	return core.FillMem(&v.m, 0, v.m.Len(), pat, es)
}

// Memset sets every byte of the view to c.
func (v *Sub[T]) Memset(c byte) error {
	if v == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset", "nil view")
	}
	return core.FillMem(&v.m, 0, v.m.Size(), uint64(c), 1)
}

var _ Array[float32] = (*Sub[float32])(nil)
