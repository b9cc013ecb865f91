package core

import (
	"fmt"
	"math/bits"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// MaxKernarg is the largest kernarg segment any agent takes: the 32,764
// bytes of kernel parameters that CUDA 12.1 allows on Volta and later.
const MaxKernarg = 32764

// A kernarg image past a queue slot's spi.KernargSlotSize goes to an
// area of the stream's own, taken from the agent's kernarg pool in one of
// three size classes (8, 16 and 32 KiB) and kept for reuse once its packet
// completed: a launch allocates nothing once the stream has the areas its
// work in flight needs. Areas are freed when the stream is destroyed.
const (
	areaMinShift = 13 // the smallest class, 8 KiB
	areaClasses  = 3
)

// kernargArea is one area: an allocation of the agent's kernarg pool, or
// mapped memory on an agent without one.
type kernargArea struct {
	al    *rocr.Allocation
	addr  uintptr
	class int8
}

// areaClass is the size class of an image of n bytes,
// KernargSlotSize < n <= MaxKernarg.
func areaClass(n int) int { return max(bits.Len(uint(n-1))-areaMinShift, 0) }

func areaSize(class int) uintptr { return 1 << (areaMinShift + class) }

// takeArea is an area for an image of n bytes; s is locked.
func (s *Stream) takeArea(n int) (kernargArea, error) {
	if n > MaxKernarg {
		return kernargArea{}, gpu.Errorf(gpu.ErrInvalidValue, "launch", "kernarg segment of %d bytes exceeds the %d any device takes", n, MaxKernarg)
	}
	c := areaClass(n)
	if free := s.areas[c]; len(free) > 0 {
		a := free[len(free)-1]
		s.areas[c] = free[:len(free)-1]
		return a, nil
	}
	size := areaSize(c)
	a := kernargArea{class: int8(c)}
	if p, err := s.q.Agent().Pool(hsa.SegmentGlobal, hsa.FlagKernargInit); err == nil {
		al, err := p.Allocate(uint64(size))
		if err != nil {
			return a, errs.Wrap("launch", err)
		}
		al.SetLabel(fmt.Sprintf("kernarg area of queue %d", s.q.ID()))
		a.al, a.addr = al, al.Base
		return a, nil
	}
	addr, err := spi.MapAnonymous(size)
	if err != nil {
		return a, errs.Wrap("launch", err)
	}
	a.addr = addr
	return a, nil
}

// putArea keeps a for reuse; s is locked.
func (s *queueState) putArea(a kernargArea) {
	if a.addr != 0 {
		s.areas[a.class] = append(s.areas[a.class], a)
	}
}

// freeAreas frees the stream's areas once nothing reads them; s is locked.
func (s *queueState) freeAreas() {
	for c := range s.areas {
		for _, a := range s.areas[c] {
			if a.al != nil {
				_ = a.al.Free()
			} else {
				_ = spi.Unmap(a.addr, areaSize(int(a.class)))
			}
		}
		s.areas[c] = nil
	}
}

// bytes is the first n bytes of a.
func (a *kernargArea) bytes(n int) []byte { return hostmem.Bytes(a.addr, uintptr(n)) }
