package rocr

import (
	"sync"
	"sync/atomic"
)

// ArgExtent is the memory a kernel's pointer argument was given when it
// is less than the allocation it points into (a view of a buffer): bytes
// [Base, End) of elements of Elem bytes. Arg is the argument's index
// among the kernel's pointer arguments, which the executor fills in.
type ArgExtent struct {
	Base, End uintptr
	Elem      int
	Arg       int
}

// argExtents holds, by kernarg address, the extents of the views a
// dispatch about to be submitted was given, for an executor that checks
// accesses against them (Queue.BoundArgs). An entry lives from the
// launch until its dispatch takes it; the next dispatch in the same
// kernarg slot replaces one that never ran.
var argExtents struct {
	mu sync.Mutex
	m  map[uint64][]ArgExtent
}

// SetArgExtents records the extents of the dispatch whose kernarg
// segment is at kernarg (copied).
func SetArgExtents(kernarg uint64, ex []ArgExtent) {
	argExtents.mu.Lock()
	if argExtents.m == nil {
		argExtents.m = map[uint64][]ArgExtent{}
	}
	argExtents.m[kernarg] = append(argExtents.m[kernarg][:0], ex...)
	argExtents.mu.Unlock()
}

// TakeArgExtents appends to dst the extents recorded for the dispatch
// whose kernarg segment is at kernarg, and forgets them.
func TakeArgExtents(kernarg uint64, dst []ArgExtent) []ArgExtent {
	argExtents.mu.Lock()
	defer argExtents.mu.Unlock()
	ex, ok := argExtents.m[kernarg]
	if !ok {
		return dst
	}
	dst = append(dst, ex...)
	argExtents.m[kernarg] = ex[:0]
	return dst
}

// boundArgs marks queues whose executor checks accesses against the
// extents of views (SetBoundArgs).
type boundArgs struct{ on atomic.Bool }

// SetBoundArgs says that the queue's executor checks each access of a
// kernel against the view its pointer argument was given
// (HIPGO_STRICT_PTR=1 on the cpu agent): launches then record the extents
// of the views they pass (SetArgExtents).
func (q *Queue) SetBoundArgs(on bool) { q.bound.on.Store(on) }

// BoundArgs reports whether launches on q record the extents of views.
func (q *Queue) BoundArgs() bool { return q.bound.on.Load() }
