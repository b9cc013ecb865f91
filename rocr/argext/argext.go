// Package argext carries, from a launch to the executor that runs it, the
// extents of the views a kernel's pointer arguments were given, for an
// executor that checks each access against them (HIPGO_STRICT_PTR=1 on the
// cpu agent). It is plumbing between gpu's launch path and a driver, kept
// out of rocr's runtime API; programs have no use for it.
//
// Every function is safe for concurrent use.
package argext

import (
	"sync"
	"sync/atomic"
)

// Extent is the memory a kernel's pointer argument was given when it is
// less than the allocation it points into (a view of a buffer): bytes
// [Base, End) of elements of Elem bytes. Arg is the argument's index
// among the kernel's pointer arguments, which the executor fills in.
type Extent struct {
	Base, End uintptr
	Elem      int
	Arg       int
}

// extents holds, by kernarg address, the extents of the views a dispatch
// about to be submitted was given. An entry lives from the launch until
// its dispatch takes it; the next dispatch in the same kernarg slot
// replaces one that never ran (one whose executor does not check), so
// the table never holds more entries than there are kernarg slots.
var extents struct {
	mu sync.Mutex
	m  map[uint64][]Extent
}

// checking counts the executors that check accesses (Enable).
var checking atomic.Int32

// Enable says that an executor of this process checks accesses against
// the extents of views: from then on launches record them (Set).
func Enable() { checking.Add(1) }

// Enabled reports whether launches record the extents of views.
func Enabled() bool { return checking.Load() > 0 }

// Set records the extents of the dispatch whose kernarg segment is at
// kernarg (copied).
func Set(kernarg uint64, ex []Extent) {
	extents.mu.Lock()
	if extents.m == nil {
		extents.m = map[uint64][]Extent{}
	}
	extents.m[kernarg] = append(extents.m[kernarg][:0], ex...)
	extents.mu.Unlock()
}

// Take appends to dst the extents recorded for the dispatch whose kernarg
// segment is at kernarg, and forgets them.
func Take(kernarg uint64, dst []Extent) []Extent {
	extents.mu.Lock()
	defer extents.mu.Unlock()
	ex, ok := extents.m[kernarg]
	if !ok {
		return dst
	}
	dst = append(dst, ex...)
	extents.m[kernarg] = ex[:0]
	return dst
}
