package rocm

import (
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/amdgpu"
	"github.com/hipgo/hipgo/rocr/spi"
)

// ROCR has no occupancy calculator (HIP computes it in its own runtime),
// so the agent computes one from the kernel's code object and its
// target's limits (rocr/internal/amdgpu, which cites the formula's
// sources). It asks nothing of libhsa-runtime64.

// MaxActiveGroups implements spi.Occupancy.
func (a *agent) MaxActiveGroups(k *hsa.KernelSymbol, groupSize, dynGroupMem int) (int, error) {
	const op = "occupancy"
	lim, u, err := a.occupancyUsage(op, k)
	if err != nil {
		return 0, err
	}
	o, err := lim.Occupancy(u, groupSize, dynGroupMem)
	if err != nil {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: %v", k.Name, err)
	}
	return o.Groups, nil
}

// MaxPotentialGroupSize implements spi.Occupancy.
func (a *agent) MaxPotentialGroupSize(k *hsa.KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error) {
	const op = "occupancy"
	lim, u, err := a.occupancyUsage(op, k)
	if err != nil {
		return 0, 0, err
	}
	minGrid, groupSize, err = lim.MaxPotentialGroupSize(u, dynGroupMem, limit, a.info.ComputeUnits)
	if err != nil {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s: %v", k.Name, err)
	}
	return minGrid, groupSize, nil
}

// occupancyUsage finds the agent's limits and what kernel k uses: its
// metadata, with the loaded symbol's static group segment, which the
// runtime read from the kernel descriptor.
func (a *agent) occupancyUsage(op string, k *hsa.KernelSymbol) (*amdgpu.Limits, amdgpu.Usage, error) {
	lim, err := amdgpu.Lookup(a.info.ISA)
	if err != nil {
		return nil, amdgpu.Usage{}, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s (%s): %v", a.info.Name, a.info.ISA, err)
	}
	if !a.holds(k) {
		return nil, amdgpu.Usage{}, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s is not loaded on %s", k.Name, a.info.Name)
	}
	meta, ok := k.Meta.(*codeobj.Kernel)
	if !ok || meta == nil {
		return nil, amdgpu.Usage{}, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "kernel %s carries no code object metadata to compute occupancy from", k.Name)
	}
	u := lim.KernelUsage(meta)
	u.GroupSegment = max(u.GroupSegment, int(k.GroupSegmentSize))
	return lim, u, nil
}

// holds reports whether k is a kernel of an executable still loaded on a.
func (a *agent) holds(k *hsa.KernelSymbol) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for e := range a.exes {
		for i := range e.syms {
			if e.syms[i].Object == k.Object && e.syms[i].Name == k.Name {
				return true
			}
		}
	}
	return false
}

var _ spi.Occupancy = (*agent)(nil)
