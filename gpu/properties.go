package gpu

import (
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Properties holds the hipDeviceProp_t fields HIP programs read most.
type Properties struct {
	Name                      string
	GCNArchName               string // target: "gfx90a:sramecc+:xnack-", "sm_90", "go"
	Vendor                    string
	Driver                    string // hipgo driver: "rocm", "cuda", "cpu"
	TotalGlobalMem            uint64
	SharedMemPerBlock         int
	MaxSharedMemPerBlockOptin int
	WarpSize                  int
	MaxThreadsPerBlock        int
	MaxThreadsDim             [3]int
	MaxGridSize               [3]int // in blocks, as hipDeviceProp_t
	MultiProcessorCount       int
	ClockRate                 int // kHz
	MemoryClockRate           int // kHz
	MemoryBusWidth            int
	L2CacheSize               int
	PCIDomainID               int
	PCIBusID                  int
	PCIDeviceID               int
	Major, Minor              int
	UUID                      string
	IsCPU                     bool // the software agent
	// ClusterLaunch: the device launches thread-block clusters
	// (LaunchConfig.Cluster; cuda on compute capability 9.0 and later).
	ClusterLaunch bool

	MaxThreadsPerMultiProcessor int
	MaxBlocksPerMultiProcessor  int
	SharedMemPerMultiprocessor  int
	RegsPerBlock                int // 0 on the cpu agent, which has no registers
	RegsPerMultiprocessor       int
	TotalConstMem               int
	MemPitch                    int // the largest pitch a 2-D copy takes, bytes
	AsyncEngineCount            int
	ConcurrentKernels           bool
	CooperativeLaunch           bool // module.LaunchCooperativeKernel works here
	ManagedMemory               bool // buffer.NewManaged works here
	ConcurrentManagedAccess     bool // host and device may touch managed memory at once
	MemoryPoolsSupported        bool // buffer.NewAsync and pools: every hipgo device
	UnifiedAddressing           bool // one address space with the host: every hipgo device
	CanMapHostMemory            bool // kernels reach buffer.Host memory: every hipgo device
	Integrated                  bool // the device's memory is the host's (the cpu agent)
	ECCEnabled                  bool
}

func propertiesOf(a *rocr.Agent) Properties {
	in := a.Info()
	p := Properties{
		Name:                      in.Name,
		GCNArchName:               in.ISA,
		Vendor:                    in.Vendor,
		Driver:                    in.Driver,
		TotalGlobalMem:            in.TotalMemory,
		SharedMemPerBlock:         in.GroupMemSize,
		MaxSharedMemPerBlockOptin: in.MaxDynamicGroup,
		WarpSize:                  in.Wavefront,
		MaxThreadsPerBlock:        in.MaxWorkGroupSize,
		MaxThreadsDim:             in.MaxWorkGroupDim,
		MultiProcessorCount:       in.ComputeUnits,
		ClockRate:                 in.ClockMHz * 1000,
		MemoryClockRate:           in.MemoryClockMHz * 1000,
		MemoryBusWidth:            in.MemoryBusWidth,
		L2CacheSize:               in.L2CacheSize,
		PCIDomainID:               in.PCIDomain,
		PCIBusID:                  in.PCIBus,
		PCIDeviceID:               in.PCIDevice,
		Major:                     in.ComputeMajor,
		Minor:                     in.ComputeMinor,
		UUID:                      in.UUID,
		IsCPU:                     in.Type == hsa.DeviceCPU,
		ClusterLaunch:             in.MaxClusterSize > 0,

		MaxThreadsPerMultiProcessor: in.MaxThreadsPerCU,
		MaxBlocksPerMultiProcessor:  in.MaxBlocksPerCU,
		SharedMemPerMultiprocessor:  in.GroupMemPerCU,
		RegsPerBlock:                in.RegsPerBlock,
		RegsPerMultiprocessor:       in.RegsPerCU,
		TotalConstMem:               in.TotalConstMem,
		MemPitch:                    in.MemPitch,
		AsyncEngineCount:            in.AsyncEngines,
		ConcurrentKernels:           in.ConcurrentKernels,
		CooperativeLaunch:           in.Cooperative,
		ManagedMemory:               in.ManagedMemory,
		ConcurrentManagedAccess:     in.ConcurrentManagedAccess,
		MemoryPoolsSupported:        true,
		UnifiedAddressing:           true,
		CanMapHostMemory:            true,
		Integrated:                  in.Integrated,
		ECCEnabled:                  in.ECC,
	}
	if p.MaxBlocksPerMultiProcessor == 0 && in.MaxWorkGroupSize > 0 {
		p.MaxBlocksPerMultiProcessor = max(1, p.MaxThreadsPerMultiProcessor/max(in.Wavefront, 1))
	}
	if in.ProductName != "" {
		p.Name = in.ProductName
	}
	for i := range p.MaxGridSize {
		g := in.MaxGridSize[i]
		if b := in.MaxGridBlocks[i]; b != 0 && b < g {
			g = b
		}
		if g > 1<<31-1 {
			g = 1<<31 - 1
		}
		p.MaxGridSize[i] = int(g)
	}
	return p
}

// Dim3 is HIP's dim3: grid sizes in blocks, block sizes in threads.
type Dim3 struct{ X, Y, Z uint32 }

// D1, D2 and D3 build a Dim3; missing dimensions are 1.
func D1(x uint32) Dim3 { return Dim3{x, 1, 1} }

// D2 builds a two-dimensional Dim3.
func D2(x, y uint32) Dim3 { return Dim3{x, y, 1} }

// D3 builds a three-dimensional Dim3.
func D3(x, y, z uint32) Dim3 { return Dim3{x, y, z} }

// Count is X*Y*Z.
func (d Dim3) Count() uint64 { return uint64(d.X) * uint64(d.Y) * uint64(d.Z) }

// Dims is the number of dimensions in use (1 to 3).
func (d Dim3) Dims() int {
	switch {
	case d.Z > 1:
		return 3
	case d.Y > 1:
		return 2
	}
	return 1
}

// Blocks returns the number of blocks of size block that cover n items.
func Blocks(n int, block uint32) uint32 {
	if n <= 0 || block == 0 {
		return 0
	}
	return uint32((n + int(block) - 1) / int(block))
}
