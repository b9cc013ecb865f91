package core

import (
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Device ids of a managed range's attributes, as HIP gives them.
const (
	CPUDeviceID     = -1 // hipCpuDeviceId: the host
	InvalidDeviceID = -2 // hipInvalidDeviceId: none
)

// RangeAdvice is what the hints and prefetches of managed memory left
// (hipMemRangeGetAttribute): the drivers keep no state to ask, so the
// memory records them. Devices are ordinals, the host CPUDeviceID.
type RangeAdvice struct {
	ReadMostly   bool
	Preferred    int   // InvalidDeviceID: none
	AccessedBy   []int // in the order they were set
	LastPrefetch int   // InvalidDeviceID: never prefetched
}

// Advice is what the hints and prefetches of m (its root) left.
func (m *Mem) Advice() RangeAdvice {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.advice == nil {
		return RangeAdvice{Preferred: InvalidDeviceID, LastPrefetch: InvalidDeviceID}
	}
	a := *r.advice
	a.AccessedBy = slices.Clone(a.AccessedBy)
	return a
}

// RecordAdvice notes a hint the driver took about dev (nil: the host).
func (m *Mem) RecordAdvice(advice hsa.Advice, dev *gpu.Device) {
	id := dev.Ordinal() // -1, CPUDeviceID, for nil
	m.editAdvice(func(a *RangeAdvice) {
		switch advice {
		case hsa.AdviseSetReadMostly:
			a.ReadMostly = true
		case hsa.AdviseUnsetReadMostly:
			a.ReadMostly = false
		case hsa.AdviseSetPreferredLocation:
			a.Preferred = id
		case hsa.AdviseUnsetPreferredLocation:
			a.Preferred = InvalidDeviceID
		case hsa.AdviseSetAccessedBy:
			if !slices.Contains(a.AccessedBy, id) {
				a.AccessedBy = append(a.AccessedBy, id)
			}
		case hsa.AdviseUnsetAccessedBy:
			a.AccessedBy = slices.DeleteFunc(a.AccessedBy, func(x int) bool { return x == id })
		}
	})
}

// RecordPrefetch notes a prefetch queued to dev (nil: the host).
func (m *Mem) RecordPrefetch(dev *gpu.Device) {
	id := dev.Ordinal()
	m.editAdvice(func(a *RangeAdvice) { a.LastPrefetch = id })
}

func (m *Mem) editAdvice(f func(*RangeAdvice)) {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.advice == nil {
		r.advice = &RangeAdvice{Preferred: InvalidDeviceID, LastPrefetch: InvalidDeviceID}
	}
	f(r.advice)
}
