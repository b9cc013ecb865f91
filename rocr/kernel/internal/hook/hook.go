// Package hook carries what package kernel keeps unexported to package
// kernelimpl, which drivers and generated code import: kernel sets the
// functions when it is initialised, before any kernel can run.
package hook

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr/spi"
)

// Group is what a driver that runs Go kernels hands the SDK for each
// work-group it runs (kernelimpl.Group documents it).
type Group interface {
	spi.MemoryView
	Dims() (id, size, count, grid [3]int)
	GroupID() [3]int
	Shared() []byte
	Dispatch() uint64
	Local() *any
	GridSync()
	Canceled() bool
}

// The hooks; k is a *kernel.Kernel, b a *kernel.Block.
var (
	Run     func(k any, g Group, kernarg unsafe.Pointer)
	GroupOf func(b any) Group
	Lookup  func(obj uint64) any
	// KernelFunc is the function a per-group kernel running on g was
	// defined with, "" for one that runs per work-item.
	KernelFunc  func(g Group) string
	SetLockstep func(k any)
	Cached      func(b any, p uintptr, n int64, size uintptr) (base unsafe.Pointer, length int, ok bool)
	Keep        func(b any, p uintptr, n int64, size uintptr, base unsafe.Pointer, length int)
	FindFrame   func(b any, key unsafe.Pointer) unsafe.Pointer
	AddFrame    func(b any, key, frame unsafe.Pointer)
	// FrameOfLane is the frame of the block of the lane l points to: a
	// kernel.Thread's first word.
	FrameOfLane func(l unsafe.Pointer) unsafe.Pointer
	// Flat is the index in the full block of work-item i of block b (a
	// partial group's work-items are fewer than its size).
	Flat func(b any, i int) int
	// WarpError is the failure what of work-item flat of block b at warp
	// operation op (OpShfl...) with mask, or with a shuffle's width: the
	// error the coroutines of kernelimpl.Lockstep report.
	WarpError func(b any, what, flat int, op uint8, mask uint64, width int) error
)

// The warp operations, as the failures name them.
const (
	OpSync uint8 = iota + 1
	OpShfl
	OpVote
	OpReduce
)

// The failures of warp operations.
const (
	WarpMaskLane = iota // the mask does not name the caller's lane
	WarpWidth           // a shuffle's width is not a power of two up to the warp
	WarpNever           // a lane the mask names is elsewhere
)
