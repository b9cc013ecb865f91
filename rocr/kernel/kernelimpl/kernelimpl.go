// Package kernelimpl is what generated code and drivers use of the Go
// kernel SDK (package kernel), and nothing a kernel author writes: kernel
// code imports package kernel. Only the files hipgo-gen -go writes and a
// driver that runs Go kernels (the cpu agent's) import this package; it
// may change from one release to the next with the generator and the
// drivers, so regenerate (go generate) after updating hipgo.
package kernelimpl

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/internal/hook"
)

// Group is what a driver that runs Go kernels hands the SDK for each
// work-group it runs: the group's place in the grid, its group memory, a
// checked view of device memory (which may also be an spi.BoundedView
// and an spi.Faulter), the grid barrier and the dispatch's cancellation.
// The cpu driver's work-groups implement it. Its methods:
//
//   - View(addr, size): spi.MemoryView's, failing the dispatch (by a
//     panic the driver recovers) on an access outside device memory.
//   - Dims() (id, size, count, grid [3]int): the group's id, its size in
//     work-items, the grid's size in groups and in work-items. The grid's
//     last group in a dimension may be partial (HSA allows it): its
//     work-items past the grid do not exist.
//   - GroupID(): Dims' id alone, for the other groups of a dispatch.
//   - Shared(): the group segment, static then dynamic group memory.
//   - Dispatch(): a number no other dispatch has: what the SDK keeps for
//     one dispatch (its argument views) is reused for its other groups.
//   - Local(): a slot the SDK keeps its per-worker state in, from one
//     dispatch to the next; the driver calls Release on what it holds
//     (if it has that method) when the worker ends.
//   - GridSync(), Canceled(): kernel.Block's, which call them.
type Group = hook.Group

// Run runs one work-group g of kernel k, whose kernarg image is at
// kernarg: the entry point of a driver that runs Go kernels.
func Run(k *kernel.Kernel, g Group, kernarg unsafe.Pointer) { hook.Run(k, g, kernarg) }

// GroupOf is the driver's work-group behind b.
func GroupOf(b *kernel.Block) Group { return hook.GroupOf(b) }

// Lookup is the kernel whose Symbol().Object is obj (the kernel object a
// dispatch packet names), nil if no kernel has it.
func Lookup(obj uint64) *kernel.Kernel {
	k, _ := hook.Lookup(obj).(*kernel.Kernel)
	return k
}

// KernelFunc is, while group g runs a per-group kernel (one whose
// function never asks for its work-items' Threads), the name stack frames
// give the function its Define was given: a driver that reports the
// kernel's panic names that frame's line, the kernel's own call that
// failed. It is "" for a kernel that runs per work-item, whose author's
// function is the deepest frame of the SDK's caller.
func KernelFunc(g Group) string { return hook.KernelFunc(g) }

// What generated code calls: hipgo-gen -go's registrations of per-item
// kernels for the cpu agent.

// Lockstep marks a kernel that calls SyncThreads or warp operations: its
// work-items run as coroutines, stopping at each barrier.
func Lockstep() kernel.Option { return func(k *kernel.Kernel) { hook.SetLockstep(k) } }

// View is a kernel's slice argument: n elements from p, checked against
// the allocation p points into once per dispatch and worker.
func View[T any](b *kernel.Block, p rocr.Ptr[T], n int64) []T {
	if n == 0 {
		return nil
	}
	var zero T
	size := unsafe.Sizeof(zero)
	if base, l, ok := hook.Cached(b, uintptr(p), n, size); ok {
		return unsafe.Slice((*T)(base), l)
	}
	return keep(b, uintptr(p), n, p.Slice(b, 0, int(n)))
}

// ViewRest is a kernel's slice argument whose length the kernel never
// reads, passed as a bare pointer: the elements from p to the end of the
// allocation p points into, so Go's bounds checks stop at its end.
func ViewRest[T any](b *kernel.Block, p rocr.Ptr[T]) []T {
	if p == 0 {
		return nil
	}
	var zero T
	size := unsafe.Sizeof(zero)
	if base, l, ok := hook.Cached(b, uintptr(p), -1, size); ok {
		return unsafe.Slice((*T)(base), l)
	}
	a := rocr.FindAllocation(uintptr(p))
	if a == nil {
		// Not device memory: View's check names what it is.
		return p.Slice(b, 0, 1)
	}
	return keep(b, uintptr(p), -1, p.Slice(b, 0, int((a.Base+a.Size-uintptr(p))/size)))
}

// ConstView is View for a read-only argument.
func ConstView[T any](b *kernel.Block, p rocr.ConstPtr[T], n int64) []T {
	return View(b, rocr.Ptr[T](p), n)
}

// ConstViewRest is ViewRest for a read-only argument.
func ConstViewRest[T any](b *kernel.Block, p rocr.ConstPtr[T]) []T {
	return ViewRest(b, rocr.Ptr[T](p))
}

// keep remembers s, the view of (p, n), for the dispatch's other groups
// on this worker.
func keep[T any](b *kernel.Block, p uintptr, n int64, s []T) []T {
	if len(s) > 0 {
		var zero T
		hook.Keep(b, p, n, unsafe.Sizeof(zero), unsafe.Pointer(&s[0]), len(s))
	}
	return s
}

// Frame is a lockstep or fissioned kernel's frame of type F (its
// arguments, its per-work-item variables), kept by the block for every
// later work-group and dispatch of the kernel on this worker, whichever
// kernels run in between, so a launch allocates nothing.
func Frame[F any](b *kernel.Block) *F {
	key := typeKey[F]()
	if f := hook.FindFrame(b, key); f != nil {
		return (*F)(f)
	}
	f := new(F)
	hook.AddFrame(b, key, unsafe.Pointer(f))
	return f
}

// FrameOf is the frame of the block t belongs to.
func FrameOf[F any](t kernel.Thread) *F {
	return (*F)(hook.FrameOfLane(*(*unsafe.Pointer)(unsafe.Pointer(&t))))
}

// typeKey is a unique pointer per type F.
func typeKey[F any]() unsafe.Pointer {
	var v any = (*F)(nil)
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[0]
}

// Locals is a fissioned kernel's variable that lives across a barrier, one
// element per work-item: *s, kept in the kernel's Frame, grown to n
// elements, so a launch allocates nothing once the frame has grown.
func Locals[T any](s *[]T, n int) []T {
	if cap(*s) < n {
		*s = make([]T, n)
	}
	return (*s)[:n]
}
