package cpu

import (
	"fmt"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
	"math/bits"
	"sync"
	"sync/atomic"
)

// The sanitizer (spi.Sanitizing: HIPGO_SANITIZE=1, gputest.Sanitize)
// keeps one shadow bit per byte of device memory allocated while it is on:
// set by kernel writes through the checked views and by copies and fills,
// checked by kernel reads. A kernel reads through a rocr.ConstPtr
// argument (a const pointer) and writes through a Ptr: reads through a Ptr
// are taken as writes, so only reads through const pointers are checked.

// shadow is an allocation's written bits.
type shadow struct{ bits []uint64 }

// shadows maps an allocation's base to its shadow; Free drops it.
var (
	shadows     sync.Map // uintptr -> *shadow
	shadowsUsed atomic.Bool
)

func trackAllocation(p uintptr, size uint64) {
	shadowsUsed.Store(true)
	shadows.Store(p, &shadow{bits: make([]uint64, (size+63)/64)})
}

func untrackAllocation(p uintptr) {
	if shadowsUsed.Load() {
		shadows.Delete(p)
	}
}

func shadowOf(a spi.Allocation) *shadow {
	if a.Base == 0 || !shadowsUsed.Load() {
		return nil
	}
	if s, ok := shadows.Load(a.Base); ok {
		return s.(*shadow)
	}
	return nil
}

// mark sets the bits of bytes [lo, hi) of the allocation.
func (s *shadow) mark(lo, hi uintptr) {
	for lo < hi {
		w, b := lo/64, lo%64
		n := min(64-b, hi-lo)
		m := ^uint64(0) >> (64 - n) << b
		if atomic.LoadUint64(&s.bits[w])&m != m {
			atomic.OrUint64(&s.bits[w], m)
		}
		lo += n
	}
}

// unwritten returns the first byte of [lo, hi) never written, or hi.
func (s *shadow) unwritten(lo, hi uintptr) uintptr {
	for lo < hi {
		w, b := lo/64, lo%64
		n := min(64-b, hi-lo)
		m := ^uint64(0) >> (64 - n) << b
		if missing := ^atomic.LoadUint64(&s.bits[w]) & m; missing != 0 {
			return w*64 + uintptr(bits.TrailingZeros64(missing))
		}
		lo += n
	}
	return hi
}

// markRange records a copy's or fill's write of [addr, addr+n).
func markRange(addr, n uintptr) {
	if !shadowsUsed.Load() {
		return
	}
	a, _ := host.FindAllocation(addr)
	if s := shadowOf(a); s != nil {
		lo := addr - a.Base
		s.mark(lo, lo+min(n, a.Size-min(lo, a.Size)))
	}
}

// sanitizeAccess checks a read through a const pointer argument, or marks
// a write, of [addr, addr+size) in a through base.
func (g *group) sanitizeAccess(a spi.Allocation, base, addr, size uintptr) {
	s := shadowOf(a)
	if s == nil || size == 0 {
		return
	}
	lo, hi := addr-a.Base, addr-a.Base+size
	if !g.job.readOnly(base) {
		s.mark(lo, hi)
		return
	}
	if u := s.unwritten(lo, hi); u < hi {
		panic(&AccessError{Kernel: g.kernel.name, Group: g.ID, Err: hsa.ErrInvalidArgument,
			Msg: fmt.Sprintf("read of [%#x, %#x) in %s: byte %#x (offset %d) was never written since allocation (HIPGO_SANITIZE)", addr, addr+size, a, a.Base+u, u)})
	}
}

// readOnly reports whether base lies in an allocation that one of the
// dispatch's const pointer arguments, and none of its writable ones,
// points into.
func (j *job) readOnly(base uintptr) bool {
	ro := false
	for _, x := range j.sanArgs {
		if base >= x.lo && base < x.hi {
			if !x.readOnly {
				return false
			}
			ro = true
		}
	}
	return ro
}

// sanArg is a pointer argument's allocation and whether it is const.
type sanArg struct {
	lo, hi   uintptr
	readOnly bool
}

// MarkWritten tells the sanitizer that [addr, addr+n) of device memory was
// written outside the runtime's view: code that fills device memory
// through raw host pointers (hostmem.At) instead of copies says so.
func MarkWritten(addr, n uintptr) { markRange(addr, n) }
