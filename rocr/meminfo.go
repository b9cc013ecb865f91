package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// MemInfo is the agent's device memory free now and in all
// (hipMemGetInfo): the driver's figures where it has them
// (spi.MemoryInfo), else the total less what this runtime's pools of
// device memory hand out.
func (a *Agent) MemInfo() (free, total uint64, err error) {
	if err := a.check("mem get info"); err != nil {
		return 0, 0, err
	}
	if m, ok := a.drv.(spi.MemoryInfo); ok {
		if free, total, err := m.MemInfo(); err == nil {
			if total == 0 {
				total = a.info.TotalMemory
			}
			return min(free, total), total, nil
		}
	}
	total = a.info.TotalMemory
	var used uint64
	for _, p := range a.pools {
		if p.info.Segment == hsa.SegmentGlobal && p.info.Flags&hsa.FlagCoarseGrained != 0 {
			used += p.Used()
		}
	}
	ipcPools.mu.Lock()
	if p := ipcPools.m[a]; p != nil {
		used += p.Used()
	}
	ipcPools.mu.Unlock()
	if used > total {
		used = total
	}
	return total - used, total, nil
}
