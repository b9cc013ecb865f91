package kernel

import (
	"fmt"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/spi"
)

// What a per-group kernel calls: the Go twin of a C++ kernel, written by
// hand for the cpu agent, works on its whole work-group at once.

// BlockIdx is the work-group's id in the grid (blockIdx).
func (b *Block) BlockIdx() Dim { return b.id }

// BlockDim is the work-group's size in work-items as the launch asked
// for it (blockDim); the grid's last group may hold fewer (Items).
func (b *Block) BlockDim() Dim { return b.dim }

// GridDim is the grid's size in work-groups (gridDim).
func (b *Block) GridDim() Dim { return b.grid }

// GridSize is the grid's size in work-items.
func (b *Block) GridSize() Dim { return dim(b.total) }

// Items is the number of work-items the group holds along dimension d (0,
// 1 or 2): BlockDim's but in the grid's last, partial group (HSA allows
// partial work-groups).
func (b *Block) Items(d int) int { return b.ext[d] }

// Span is the range [lo, hi) of global work-item indexes the group covers
// in dimension d, clipped to n and to the grid: a per-group kernel's loop
// is `lo, hi := b.Span(0, n); for i := lo; i < hi; i++ { ... }`.
func (b *Block) Span(d, n int) (lo, hi int) {
	size := [3]int{b.dim.X, b.dim.Y, b.dim.Z}
	id := [3]int{b.id.X, b.id.Y, b.id.Z}
	lo = id[d] * size[d]
	hi = min(lo+b.ext[d], n)
	return min(lo, hi), hi
}

// GridSync waits until every work-group of the grid reaches it (a
// cooperative_groups grid sync): what any group wrote before it is
// visible to every group after it. Only a cooperative launch
// (module.LaunchCooperative) may call it; elsewhere it fails the
// dispatch, as it does when another group fails or the dispatch is
// cancelled while this one waits. A group that returns no longer counts.
func (b *Block) GridSync() { b.grp.GridSync() }

// Canceled reports whether the dispatch has been cancelled (its queue
// destroyed, its kernel timeout passed, its stream's context ended): a
// long-running kernel polls it and returns early.
func (b *Block) Canceled() bool { return b.grp.Canceled() }

// View implements spi.MemoryView, so that rocr.Ptr's At and Slice take the
// Block: the memory at [addr, addr+size), checked to lie in one live
// allocation the agent may access; otherwise the dispatch fails.
func (b *Block) View(addr, size uintptr) unsafe.Pointer { return b.grp.View(addr, size) }

// ViewFrom implements spi.BoundedView: View, and the range must lie in the
// allocation that base, the pointer the kernel was given, points into.
func (b *Block) ViewFrom(base, addr, size uintptr) unsafe.Pointer {
	if v, ok := b.grp.(spi.BoundedView); ok {
		return v.ViewFrom(base, addr, size)
	}
	return b.grp.View(addr, size)
}

// Fault implements spi.Faulter: it fails the dispatch with msg.
func (b *Block) Fault(msg string) {
	if f, ok := b.grp.(spi.Faulter); ok {
		f.Fault(msg)
	}
	panic(fmt.Errorf("kernel %s work-group %v: %s", b.name, [3]int{b.id.X, b.id.Y, b.id.Z}, msg))
}

// GroupShared views the group's memory from byte offset off as n elements
// of T (a `__shared__ T x[n]` of a per-group kernel): every call of the
// group with the same offset sees the same memory. off must be a multiple
// of T's alignment and the view must fit the group segment (the kernel's
// StaticShared and the launch's dynamic group memory); otherwise the
// dispatch fails. T should hold no Go pointers: group memory is outside
// the Go heap.
func GroupShared[T any](b *Block, off, n int) []T {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), int(unsafe.Alignof(zero))
	if off < 0 || n < 0 || off > len(b.shared) || (size > 0 && n > (len(b.shared)-off)/size) {
		b.Fault(fmt.Sprintf("group memory [%d, %d) outside the %d-byte group segment", off, off+size*n, len(b.shared)))
	}
	if off%align != 0 {
		b.Fault(fmt.Sprintf("group memory offset %d is not aligned to %d bytes for %T", off, align, zero))
	}
	if n == 0 || size == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b.shared[off])), n)
}
