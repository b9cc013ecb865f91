package rocr

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// DeviceType is hsa_device_type_t.
type DeviceType uint32

// Device types, with hsa.h's values.
const (
	DeviceCPU DeviceType = 0
	DeviceGPU DeviceType = 1
	DeviceDSP DeviceType = 2
)

func (t DeviceType) String() string {
	switch t {
	case DeviceCPU:
		return "CPU"
	case DeviceGPU:
		return "GPU"
	case DeviceDSP:
		return "DSP"
	}
	return fmt.Sprintf("DeviceType(%d)", uint32(t))
}

// AgentInfo is what hsa_agent_get_info and its AMD extensions report, plus
// the fields hipDeviceProp_t needs.
type AgentInfo struct {
	Name             string // "cpu0", "NVIDIA H200", "gfx90a"
	Vendor           string
	ProductName      string
	Type             DeviceType
	ISA              string // target: "go", "sm_90", "gfx90a:sramecc+:xnack-"
	Wavefront        int
	ComputeUnits     int
	MaxWorkGroupSize int
	MaxWorkGroupDim  [3]int
	MaxGridSize      [3]uint64 // in work-items
	// MaxGridBlocks is a limit in blocks per dimension beside the
	// work-item one, where the device has one (CUDA's maxGridDimY is
	// 65535 blocks whatever their size); 0 where it has none.
	MaxGridBlocks   [3]uint64
	MaxGrid         uint64 // total work-items
	QueueMinSize    uint32
	QueueMaxSize    uint32
	QueuesMax       int // gpu keeps one for its copies: see Agent.ReserveQueueSlot
	GroupMemSize    int // LDS / shared memory per work-group, bytes
	MaxDynamicGroup int // dynamic LDS limit, bytes
	TotalMemory     uint64
	ClockMHz        int
	MemoryClockMHz  int
	MemoryBusWidth  int
	L2CacheSize     int
	PCIDomain       int
	PCIBus          int
	PCIDevice       int
	UUID            string
	Node            int
	ComputeMajor    int
	ComputeMinor    int
	Driver          string // driver name, filled by rocr
	DriverVersion   string
	Profiling       bool // packets carry start and end timestamps
	// MaxKernargSize is the largest kernarg segment a dispatch may carry,
	// in bytes; 0 means KernargSlotSize. Past KernargSlotSize the packet's
	// kernarg address points outside the queue's kernarg slots, into an
	// allocation of the agent's kernarg pool (cuda: 32,764 bytes with a
	// CUDA 12.1 driver on compute capability 7.0 and later).
	MaxKernargSize int
	// MaxClusterSize is the most work-groups in a portable thread-block
	// cluster (8 on sm_90); 0 where the agent has no clusters (see
	// Clusters).
	MaxClusterSize int
}

// Agent is one device that consumes AQL packets.
type Agent struct {
	drv   AgentDriver
	info  AgentInfo
	pools []*Pool
	index int
	rt    *rtState
	lost  atomic.Pointer[error] // see markLost
	// creating counts the queues and allocations being made on the
	// agent; resetting, under rt.mu, is closed when the Reset running
	// ends (nil: none). See rtState.enter.
	creating  sync.WaitGroup
	resetting chan struct{}
}

// Info returns the agent's properties.
func (a *Agent) Info() AgentInfo { return a.info }

// Name is the agent's name.
func (a *Agent) Name() string { return a.info.Name }

// ISA is the agent's target.
func (a *Agent) ISA() string { return a.info.ISA }

// Index is the agent's position in Agents().
func (a *Agent) Index() int { return a.index }

// Driver returns the driver-side agent, for drivers and tests.
func (a *Agent) Driver() AgentDriver { return a.drv }

// Pools returns the agent's memory pools.
func (a *Agent) Pools() []*Pool { return a.pools }

func (a *Agent) String() string {
	return fmt.Sprintf("agent %d (%s %s, %s)", a.index, a.info.Driver, a.info.Name, a.info.ISA)
}

// Pool returns the first pool in segment seg whose flags include flags.
func (a *Agent) Pool(seg Segment, flags GlobalFlag) (*Pool, error) {
	for _, p := range a.pools {
		if p.info.Segment == seg && p.info.Flags&flags == flags {
			return p, nil
		}
	}
	return nil, Newf(ErrNotSupported, StatusErrorInvalidMemoryPool, "pool", "%s has no %s pool with flags %s", a, seg, flags)
}

// Load loads code onto the agent.
func (a *Agent) Load(code *Code) (Executable, error) {
	if err := a.check("load"); err != nil {
		return nil, err
	}
	if code == nil {
		return nil, Errorf(StatusErrorInvalidArgument, "load", "nil code")
	}
	exe, err := a.drv.Load(code)
	if err != nil {
		return nil, err
	}
	return &loaded{Executable: exe, agent: a}, nil
}

func (a *Agent) check(op string) error {
	if a == nil {
		return Errorf(StatusErrorInvalidAgent, op, "nil agent")
	}
	if err := checkInit(op); err != nil {
		return err
	}
	if a.rt != currentRuntime() {
		return Errorf(StatusErrorInvalidAgent, op, "%s belongs to a runtime that was shut down", a)
	}
	if err := a.Lost(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}
