package cpu

import (
	"fmt"
	"runtime"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/spi"
)

// agent is one software GPU: its pools; its queues are executors.
type agent struct {
	id      int
	pools   []spi.PoolDriver
	managed *pool
	shared  shared // memory shared with other processes (ipc.go)
}

// The cpu agent's stream priorities, as gpu/stream clamps them: it
// records a stream's priority and runs every queue alike.
const (
	PriorityLeast    = 0
	PriorityGreatest = -1
)

// StreamPriorityRange implements spi.StreamPriorities.
func (a *agent) StreamPriorityRange() (least, greatest int, err error) {
	return PriorityLeast, PriorityGreatest, nil
}

// ManagedPool implements spi.ManagedMemory.
func (a *agent) ManagedPool() (spi.PoolDriver, error) { return a.managed, nil }

func (a *agent) Info() hsa.AgentInfo {
	procs := runtime.GOMAXPROCS(0)
	mem := a.pools[0].Info().Size
	return hsa.AgentInfo{
		Name:             fmt.Sprintf("cpu%d", a.id),
		Vendor:           "hipgo",
		ProductName:      fmt.Sprintf("hipgo software agent (%d workers)", procs),
		Type:             hsa.DeviceCPU,
		ISA:              ISA,
		Wavefront:        kernel.CPUWarpSize, // what a kernel's t.WarpSize() answers
		ComputeUnits:     procs,
		MaxWorkGroupSize: 1024,
		MaxWorkGroupDim:  [3]int{1024, 1024, 1024},
		MaxGridSize:      [3]uint64{1<<32 - 1, 1<<32 - 1, 1<<32 - 1},
		MaxGrid:          1<<64 - 1,
		QueueMinSize:     2,
		QueueMaxSize:     1 << 17,
		QueuesMax:        4096,
		GroupMemSize:     GroupMemory,
		MaxDynamicGroup:  GroupMemory,
		TotalMemory:      mem,
		ClockMHz:         1000,
		UUID:             fmt.Sprintf("CPU-%08x", a.id),
		Node:             a.id,
		DriverVersion:    runtime.Version(),
		Profiling:        true,
		// A worker runs one work-group at a time (occupancy.go), in the
		// host's memory: what the device shares with the host is all.
		MaxThreadsPerCU:         1024,
		MaxBlocksPerCU:          1,
		GroupMemPerCU:           GroupMemory,
		TotalConstMem:           64 << 10,
		MemPitch:                1<<31 - 1,
		Cooperative:             true,
		ConcurrentKernels:       true,
		ManagedMemory:           true,
		ConcurrentManagedAccess: true,
		Integrated:              true,
	}
}

func (a *agent) Pools() []spi.PoolDriver { return a.pools }

// Close gives the pools' memory back to the system: ShutDown calls it after
// freeing every allocation.
func (a *agent) Close() error {
	var first error
	for _, p := range append(a.pools, a.managed) {
		if p, ok := p.(*pool); ok {
			if runaways.live.Load() != 0 && holdClose(p.heap) {
				continue // an abandoned kernel may still touch it
			}
			if err := p.heap.close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}
