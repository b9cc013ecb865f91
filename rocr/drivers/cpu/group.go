package cpu

import (
	"errors"
	"fmt"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
	"path/filepath"
	"unsafe"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/internal/hostmem"
)

// group is the work-group a kernel runs (kernelimpl.Group): its id, its
// size, the grid, its group memory, and a checked view of device memory.
// A group is reused by its worker from one work-group to the next.
type group struct {
	// ID is the work-group's id in each dimension (blockIdx).
	ID [3]int
	// Size is the work-group size requested by the dispatch (blockDim).
	Size [3]int
	// Grid is the grid size in work-items.
	Grid [3]int
	// Count is the number of work-groups in each dimension (gridDim).
	Count [3]int

	shared   []byte
	queue    spi.Queue // ownership checks name its agent
	kernel   *kern
	job      *job // the dispatch, for Canceled
	cache    [4]viewRange
	next     int
	local    any    // the kernel SDK's per-worker state
	dispatch uint64 // the job's number
}

// Dispatch implements kernelimpl.Group: a number no other dispatch has.
func (g *group) Dispatch() uint64 { return g.dispatch }

// Dims implements kernelimpl.Group: the group's id, its size, and the grid's
// size in groups and in work-items.
func (g *group) Dims() (id, size, count, grid [3]int) { return g.ID, g.Size, g.Count, g.Grid }

// GroupID implements kernelimpl.Group: the group's id.
func (g *group) GroupID() [3]int { return g.ID }

// Local implements kernelimpl.Group.
func (g *group) Local() *any { return &g.local }

// release ends what the SDK keeps running for this worker (a lockstep
// kernel's coroutines) once the worker is done with a dispatch; the state
// itself stays for the next, so a dispatch allocates nothing.
func (g *group) release() {
	if r, ok := g.local.(interface{ Release() }); ok {
		r.Release()
	}
}

type viewRange struct{ lo, hi uintptr }

// Shared implements kernelimpl.Group: the group segment, static then
// dynamic group memory, as many bytes as the dispatch's group segment
// size.
func (g *group) Shared() []byte { return g.shared }

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
	var re *hsa.Error
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
func (g *group) View(addr, size uintptr) unsafe.Pointer {
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
func (g *group) Fault(msg string) {
	panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument, Msg: msg})
}

// ViewFrom implements spi.BoundedView: View, and the range must lie in
// the allocation that base, the pointer the kernel was given, points into.
func (g *group) ViewFrom(base, addr, size uintptr) unsafe.Pointer {
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
	if a, ok := host.FindAllocation(base); ok && addr+size >= addr && (addr < a.Base || addr+size > a.Base+a.Size) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument,
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
func (g *group) checkView(j *job, base, addr, end uintptr) {
	for _, x := range j.extents {
		if x.Base != base {
			continue
		}
		if addr >= x.Base && end <= x.End && end >= addr {
			return
		}
		es := uintptr(max(x.Elem, 1))
		lo, hi := int64(addr-x.Base)/int64(es), (int64(end-x.Base)+int64(es)-1)/int64(es)
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument,
			Msg: fmt.Sprintf("argument %d: elements [%d, %d) are outside the view of %d elements it was given (HIPGO_STRICT_PTR=1)", x.Arg, lo, hi, (x.End-x.Base)/es)})
	}
}

func (g *group) viewSlow(addr, size uintptr) unsafe.Pointer {
	a, p := g.view(addr, size)
	// The sanitizer sees every access: nothing is cached.
	if g.job == nil || !g.job.sanitize {
		g.cache[g.next] = viewRange{a.Base, a.Base + a.Size}
		g.next = (g.next + 1) % len(g.cache)
	}
	return p
}

// view checks [addr, addr+size) and returns its allocation and memory.
func (g *group) view(addr, size uintptr) (spi.Allocation, unsafe.Pointer) {
	a, err := host.CheckRange(g.queue, addr, size)
	if err != nil {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Msg: untagged(err), Err: err})
	}
	// Only here, off the cached fast path: what the cache holds passed it.
	if j := g.job; j != nil && j.strict && !j.allows(a) {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument,
			Msg: fmt.Sprintf("access [%#x, %#x) is in %s, which none of the kernel's pointer arguments points into (HIPGO_STRICT_PTR=1)", addr, addr+size, a)})
	}
	return a, hostmem.At(addr)
}

func (g *group) resetCache() {
	g.cache = [4]viewRange{}
	g.next = 0
}
