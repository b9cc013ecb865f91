package hsa

import "fmt"

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
	QueuesMax       int // gpu keeps one for its copies: see rocr.Agent.ReserveQueueSlot
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
	// in bytes; 0 means spi.KernargSlotSize. Past it the packet's
	// kernarg address points outside the queue's kernarg slots, into an
	// allocation of the agent's kernarg pool (cuda: 32,764 bytes with a
	// CUDA 12.1 driver on compute capability 7.0 and later).
	MaxKernargSize int
	// MaxClusterSize is the most work-groups in a portable thread-block
	// cluster (8 on sm_90); 0 where the agent has no clusters (see
	// Clusters).
	MaxClusterSize int

	// The rest of hipDeviceProp_t that programs read, where the driver
	// knows it (0 or false: none, or unknown).
	MaxThreadsPerCU         int  // resident work-items per compute unit
	MaxBlocksPerCU          int  // resident work-groups per compute unit
	GroupMemPerCU           int  // LDS / shared memory per compute unit, bytes
	RegsPerBlock            int  // 32-bit registers a work-group may use
	RegsPerCU               int  // 32-bit registers per compute unit
	TotalConstMem           int  // constant memory, bytes
	MemPitch                int  // largest pitch a 2-D copy takes, bytes
	AsyncEngines            int  // copy engines that overlap kernels
	Cooperative             bool // cooperative launches (a grid-wide barrier)
	ConcurrentKernels       bool // kernels of several streams run at once
	ManagedMemory           bool // managed (unified) memory
	ConcurrentManagedAccess bool // host and device touch managed memory at once
	Integrated              bool // shares memory with the host
	ECC                     bool // error-correcting memory enabled
}
