package gpu

// DeviceAttribute names one of hipDeviceAttribute_t's attributes that
// Device.Attribute answers (hipDeviceGetAttribute). The numbers are
// hipgo's own; the names are HIP's without the hipDeviceAttribute prefix.
type DeviceAttribute int

// The attributes Device.Attribute answers; each is a field of Properties.
const (
	AttrMaxThreadsPerBlock DeviceAttribute = iota + 1
	AttrMaxBlockDimX
	AttrMaxBlockDimY
	AttrMaxBlockDimZ
	AttrMaxGridDimX
	AttrMaxGridDimY
	AttrMaxGridDimZ
	AttrMaxSharedMemoryPerBlock
	AttrSharedMemPerBlockOptin
	AttrTotalConstantMemory
	AttrWarpSize
	AttrMaxRegistersPerBlock
	AttrClockRate
	AttrMemoryClockRate
	AttrMemoryBusWidth
	AttrMultiprocessorCount
	AttrL2CacheSize
	AttrMaxThreadsPerMultiProcessor
	AttrMaxBlocksPerMultiProcessor
	AttrMaxSharedMemoryPerMultiprocessor
	AttrMaxRegistersPerMultiprocessor
	AttrComputeCapabilityMajor
	AttrComputeCapabilityMinor
	AttrPciBusId
	AttrPciDeviceId
	AttrPciDomainID
	AttrMaxPitch
	AttrAsyncEngineCount
	AttrConcurrentKernels
	AttrCooperativeLaunch
	AttrManagedMemory
	AttrConcurrentManagedAccess
	AttrMemoryPoolsSupported
	AttrUnifiedAddressing
	AttrCanMapHostMemory
	AttrIntegrated
	AttrEccEnabled
	AttrClusterLaunch
	attrEnd
)

// Attribute is hipDeviceGetAttribute: the attribute's value, from the
// device's Properties (a flag is 0 or 1). A nil device is
// ErrInvalidDevice; an attribute not listed above is ErrInvalidValue.
func (d *Device) Attribute(attr DeviceAttribute) (int, error) {
	const op = "device get attribute"
	if err := d.Valid(); err != nil {
		return 0, wrap(op, err)
	}
	p := &d.props
	flag := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	switch attr {
	case AttrMaxThreadsPerBlock:
		return p.MaxThreadsPerBlock, nil
	case AttrMaxBlockDimX, AttrMaxBlockDimY, AttrMaxBlockDimZ:
		return p.MaxThreadsDim[attr-AttrMaxBlockDimX], nil
	case AttrMaxGridDimX, AttrMaxGridDimY, AttrMaxGridDimZ:
		return p.MaxGridSize[attr-AttrMaxGridDimX], nil
	case AttrMaxSharedMemoryPerBlock:
		return p.SharedMemPerBlock, nil
	case AttrSharedMemPerBlockOptin:
		return max(p.SharedMemPerBlock, p.MaxSharedMemPerBlockOptin), nil
	case AttrTotalConstantMemory:
		return p.TotalConstMem, nil
	case AttrWarpSize:
		return p.WarpSize, nil
	case AttrMaxRegistersPerBlock:
		return p.RegsPerBlock, nil
	case AttrClockRate:
		return p.ClockRate, nil
	case AttrMemoryClockRate:
		return p.MemoryClockRate, nil
	case AttrMemoryBusWidth:
		return p.MemoryBusWidth, nil
	case AttrMultiprocessorCount:
		return p.MultiProcessorCount, nil
	case AttrL2CacheSize:
		return p.L2CacheSize, nil
	case AttrMaxThreadsPerMultiProcessor:
		return p.MaxThreadsPerMultiProcessor, nil
	case AttrMaxBlocksPerMultiProcessor:
		return p.MaxBlocksPerMultiProcessor, nil
	case AttrMaxSharedMemoryPerMultiprocessor:
		return p.SharedMemPerMultiprocessor, nil
	case AttrMaxRegistersPerMultiprocessor:
		return p.RegsPerMultiprocessor, nil
	case AttrComputeCapabilityMajor:
		return p.Major, nil
	case AttrComputeCapabilityMinor:
		return p.Minor, nil
	case AttrPciBusId:
		return p.PCIBusID, nil
	case AttrPciDeviceId:
		return p.PCIDeviceID, nil
	case AttrPciDomainID:
		return p.PCIDomainID, nil
	case AttrMaxPitch:
		return p.MemPitch, nil
	case AttrAsyncEngineCount:
		return p.AsyncEngineCount, nil
	case AttrConcurrentKernels:
		return flag(p.ConcurrentKernels), nil
	case AttrCooperativeLaunch:
		return flag(p.CooperativeLaunch), nil
	case AttrManagedMemory:
		return flag(p.ManagedMemory), nil
	case AttrConcurrentManagedAccess:
		return flag(p.ConcurrentManagedAccess), nil
	case AttrMemoryPoolsSupported:
		return flag(p.MemoryPoolsSupported), nil
	case AttrUnifiedAddressing:
		return flag(p.UnifiedAddressing), nil
	case AttrCanMapHostMemory:
		return flag(p.CanMapHostMemory), nil
	case AttrIntegrated:
		return flag(p.Integrated), nil
	case AttrEccEnabled:
		return flag(p.ECCEnabled), nil
	case AttrClusterLaunch:
		return flag(p.ClusterLaunch), nil
	}
	return 0, Errorf(ErrInvalidValue, op, "attribute %d is not one hipgo knows", int(attr))
}

// MemInfo is hipMemGetInfo: the device memory free now and in all, in
// bytes. cuda asks the driver (cuMemGetInfo) and rocm the kernel driver
// (HSA_AMD_AGENT_INFO_MEMORY_AVAIL), so other processes' allocations
// count; the cpu agent, whose memory is a heap of this process, and a
// driver without the query report the total less what this process holds
// of it. A nil device is ErrInvalidDevice.
func (d *Device) MemInfo() (free, total uint64, err error) {
	const op = "mem get info"
	if err := d.Valid(); err != nil {
		return 0, 0, wrap(op, err)
	}
	free, total, err = d.agent.MemInfo()
	if err != nil {
		return 0, 0, wrap(op, err)
	}
	return free, total, nil
}
