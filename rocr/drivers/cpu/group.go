package cpu

import (
	"errors"
	"fmt"
	"path/filepath"
	"unsafe"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
)

// Group is the work-group a kernel runs: its id, its size, the grid, its
// group memory, and a checked view of device memory. A Group is reused by
// its worker from one work-group to the next; kernels must not keep it.
type Group struct {
	// ID is the work-group's id in each dimension (blockIdx).
	ID [3]int
	// Size is the work-group size requested by the dispatch (blockDim).
	Size [3]int
	// Grid is the grid size in work-items.
	Grid [3]int
	// Count is the number of work-groups in each dimension (gridDim).
	Count [3]int

	shared   []byte
	agent    *rocr.Agent
	kernel   *Kernel
	job      *job // the dispatch, for Canceled
	cache    [4]viewRange
	next     int
	local    any    // the kernel SDK's per-worker state
	dispatch uint64 // the job's number
}

// Dispatch implements kernel.Group: a number no other dispatch has.
func (g *Group) Dispatch() uint64 { return g.dispatch }

// Dims implements kernel.Group: the group's id, its size, and the grid's
// size in groups and in work-items.
func (g *Group) Dims() (id, size, count, grid [3]int) { return g.ID, g.Size, g.Count, g.Grid }

// GroupID implements kernel.Group: the group's id.
func (g *Group) GroupID() [3]int { return g.ID }

// Local implements kernel.Group.
func (g *Group) Local() *any { return &g.local }

// release ends what the SDK keeps running for this worker (a lockstep
// kernel's coroutines) once the worker is done with a dispatch; the state
// itself stays for the next, so a dispatch allocates nothing.
func (g *Group) release() {
	if r, ok := g.local.(interface{ Release() }); ok {
		r.Release()
	}
}

type viewRange struct{ lo, hi uintptr }

// Span returns the range [lo, hi) of global work-item indexes this group
// covers in dimension dim, clipped to n and to the grid.
func (g *Group) Span(dim, n int) (lo, hi int) {
	lo = g.ID[dim] * g.Size[dim]
	hi = lo + g.Size[dim]
	if hi > g.Grid[dim] {
		hi = g.Grid[dim]
	}
	if hi > n {
		hi = n
	}
	if lo > hi {
		lo = hi
	}
	return lo, hi
}

// Items is the number of work-items in this group along dim (smaller than
// Size for the last, partial group: HSA allows partial work-groups).
func (g *Group) Items(dim int) int {
	lo := g.ID[dim] * g.Size[dim]
	hi := min(lo+g.Size[dim], g.Grid[dim])
	return hi - lo
}

// Shared is the group segment: static then dynamic group memory, as many
// bytes as the dispatch's group segment size.
func (g *Group) Shared() []byte { return g.shared }

// Shared views group memory from byte offset off as n elements of T (a
// `__shared__ T x[n]`). off must be a multiple of T's alignment and the
// view must fit the group segment; otherwise the dispatch fails. T should
// hold no Go pointers: group memory is outside the Go heap.
func Shared[T any](g *Group, off, n int) []T {
	var zero T
	size, align := int(unsafe.Sizeof(zero)), int(unsafe.Alignof(zero))
	if off < 0 || n < 0 || (size > 0 && n > (len(g.shared)-off)/size) || off > len(g.shared) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: fmt.Sprintf("group memory [%d, %d) outside the %d-byte group segment", off, off+size*n, len(g.shared))})
	}
	if off%align != 0 {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: fmt.Sprintf("group memory offset %d is not aligned to %d bytes for %T", off, align, zero)})
	}
	if n == 0 || size == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&g.shared[off])), n)
}

// SharedFloat32 views group memory from byte offset off as n float32s.
func SharedFloat32(g *Group, off, n int) []float32 { return Shared[float32](g, off, n) }

// AccessError is a kernel's access outside what it may touch.
type AccessError struct {
	Kernel string
	Group  [3]int
	Msg    string
	Err    error
	// File and Line are the kernel function's frame that made the access,
	// once the dispatch has failed with it.
	File string
	Line int
}

func (e *AccessError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("kernel %s work-group %v at %s:%d: %s", e.Kernel, e.Group, filepath.Base(e.File), e.Line, e.Msg)
	}
	return fmt.Sprintf("kernel %s work-group %v: %s", e.Kernel, e.Group, e.Msg)
}

func (e *AccessError) Unwrap() error { return e.Err }

// untagged is err's text without its HSA status: the dispatch that fails
// carries its own (an aperture violation), and one status is enough.
func untagged(err error) string {
	var re *rocr.Error
	if errors.As(err, &re) {
		if s := errtext.Join(re.Op, re.Msg, re.Err); s != "" {
			return s
		}
	}
	return err.Error()
}

// View implements spi.MemoryView: it returns the memory at [addr,
// addr+size) after checking that it lies in one live allocation this agent
// may access, and fails the dispatch otherwise.
func (g *Group) View(addr, size uintptr) unsafe.Pointer {
	end := addr + size
	if end >= addr {
		for i := range g.cache {
			c := &g.cache[i]
			if addr >= c.lo && end <= c.hi {
				return hostmem.At(addr)
			}
		}
	}
	return g.viewSlow(addr, size)
}

// Fault implements spi.Faulter: it fails the dispatch with msg, as a bad
// access does.
func (g *Group) Fault(msg string) {
	panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: rocr.ErrInvalidArgument, Msg: msg})
}

// ViewFrom implements spi.BoundedView: View, and the range must lie in
// the allocation that base, the pointer the kernel was given, points into.
func (g *Group) ViewFrom(base, addr, size uintptr) unsafe.Pointer {
	end := addr + size
	if j := g.job; j != nil && len(j.extents) > 0 {
		g.checkView(j, base, addr, end)
	}
	if end >= addr {
		for i := range g.cache {
			c := &g.cache[i]
			if base >= c.lo && base < c.hi && addr >= c.lo && end <= c.hi {
				return hostmem.At(addr)
			}
		}
	}
	if a := rocr.FindAllocation(base); a != nil && addr+size >= addr && (addr < a.Base || addr+size > a.Base+a.Size) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: rocr.ErrInvalidArgument,
			Msg: fmt.Sprintf("access [%#x, %#x) through pointer %#x is outside [%#x, %#x) of %s", addr, addr+size, base, a.Base, a.Base+a.Size, a)})
	}
	if g.job != nil && g.job.sanitize {
		a, p := g.view(addr, size)
		g.sanitizeAccess(a, base, addr, size)
		return p
	}
	return g.viewSlow(addr, size)
}

// checkView fails an access [addr, end) through pointer base, an
// argument that was given a view (HIPGO_STRICT_PTR=1), that leaves the
// view, though it may stay in the view's buffer.
func (g *Group) checkView(j *job, base, addr, end uintptr) {
	for _, x := range j.extents {
		if x.Base != base {
			continue
		}
		if addr >= x.Base && end <= x.End && end >= addr {
			return
		}
		es := uintptr(max(x.Elem, 1))
		lo, hi := int64(addr-x.Base)/int64(es), (int64(end-x.Base)+int64(es)-1)/int64(es)
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: rocr.ErrInvalidArgument,
			Msg: fmt.Sprintf("argument %d: elements [%d, %d) are outside the view of %d elements it was given (HIPGO_STRICT_PTR=1)", x.Arg, lo, hi, (x.End-x.Base)/es)})
	}
}

func (g *Group) viewSlow(addr, size uintptr) unsafe.Pointer {
	a, p := g.view(addr, size)
	// The sanitizer sees every access: nothing is cached.
	if g.job == nil || !g.job.sanitize {
		g.cache[g.next] = viewRange{a.Base, a.Base + a.Size}
		g.next = (g.next + 1) % len(g.cache)
	}
	return p
}

// view checks [addr, addr+size) and returns its allocation and memory.
func (g *Group) view(addr, size uintptr) (*rocr.Allocation, unsafe.Pointer) {
	a, err := rocr.CheckRange(g.agent, addr, size)
	if err != nil {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: untagged(err), Err: err})
	}
	// Only here, off the cached fast path: what the cache holds passed it.
	if j := g.job; j != nil && j.strict && !j.allows(a) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: rocr.ErrInvalidArgument,
			Msg: fmt.Sprintf("access [%#x, %#x) is in %s, which none of the kernel's pointer arguments points into (HIPGO_STRICT_PTR=1)", addr, addr+size, a)})
	}
	return a, hostmem.At(addr)
}

func (g *Group) resetCache() {
	g.cache = [4]viewRange{}
	g.next = 0
}
