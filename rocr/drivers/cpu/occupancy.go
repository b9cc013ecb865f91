package cpu

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"runtime"
)

// The cpu agent's occupancy model: each worker (compute unit) runs one
// work-group at a time, from its first work-item to its last, so a compute
// unit holds one group whatever its size, and the largest group the kernel
// allows does the most work per scheduling step. A group does not fit when
// it is larger than the kernel's limit or its group memory exceeds
// GroupMemory.

// MaxActiveGroups implements spi.Occupancy.
func (a *agent) MaxActiveGroups(k *hsa.KernelSymbol, groupSize, dynGroupMem int) (int, error) {
	if groupSize > maxGroup(k) || int(k.GroupSegmentSize)+dynGroupMem > GroupMemory {
		return 0, nil
	}
	return 1, nil
}

// MaxPotentialGroupSize implements spi.Occupancy.
func (a *agent) MaxPotentialGroupSize(k *hsa.KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error) {
	if int(k.GroupSegmentSize)+dynGroupMem > GroupMemory {
		return 0, 0, nil
	}
	groupSize = maxGroup(k)
	if limit > 0 {
		groupSize = min(groupSize, limit)
	}
	return runtime.GOMAXPROCS(0), groupSize, nil
}

// maxGroup is the largest work-group the kernel accepts on this agent.
func maxGroup(k *hsa.KernelSymbol) int {
	const agentMax = 1024 // AgentInfo.MaxWorkGroupSize
	if k.MaxFlatWorkGroupSize > 0 {
		return min(k.MaxFlatWorkGroupSize, agentMax)
	}
	return agentMax
}
