// Package kernelimpl is what drivers that run Go kernels use of the
// kernel SDK (package kernel), and nothing a kernel author writes. Kernel
// code imports package kernel; only a driver (the cpu agent's) imports
// this package, and it may change from one release to the next as the
// drivers do.
package kernelimpl

import (
	"unsafe"

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
