package rocm

import "unsafe"

// pitchedPtr is hsa_pitched_ptr_t; dim3 is hsa_dim3_t.
type (
	pitchedPtr struct {
		base         uintptr
		pitch, slice uint64
	}
	dim3 struct{ x, y, z uint32 }
)

// svmAttribute is hsa_amd_svm_attribute_pair_t.
type svmAttribute struct{ attribute, value uint64 }

// hsaStatus is hsa_status_t as a foreign call returns it.
type hsaStatus uint32

// Opaque handles: each is the one uint64 of its hsa.h struct
// (hsa_agent_t, hsa_amd_memory_pool_t, hsa_signal_t, ...), passed by value
// in one integer register as the C ABI passes a one-field struct.
type (
	agentH  uint64
	poolH   uint64
	signalH uint64
	isaH    uint64
	readerH uint64
	exeH    uint64
	symbolH uint64
)

// hsaAPI is the part of ROCR's function table the driver uses. lib
// implements it over libhsa-runtime64 with purego; the tests implement it
// with a fake, so everything between the calls (agent and pool selection,
// kernarg placement, queues, signals, loading) runs without a GPU.
//
// Methods mirror the C functions one to one. Info getters write into out,
// which points at Go memory of the size hsa.h gives the attribute. The
// iterators call f for each item until f returns something other than
// hsaSuccess (hsaInfoBreak stops early and is not an error).
type hsaAPI interface {
	Init() hsaStatus
	ShutDown() hsaStatus
	StatusString(st hsaStatus) string
	SystemGetInfo(attr uint32, out unsafe.Pointer) hsaStatus

	IterateAgents(f func(agentH) hsaStatus) hsaStatus
	AgentGetInfo(a agentH, attr uint32, out unsafe.Pointer) hsaStatus
	AgentIterateISAs(a agentH, f func(isaH) hsaStatus) hsaStatus
	ISAGetInfo(i isaH, attr uint32, out unsafe.Pointer) hsaStatus

	AgentIteratePools(a agentH, f func(poolH) hsaStatus) hsaStatus
	PoolGetInfo(p poolH, attr uint32, out unsafe.Pointer) hsaStatus
	AgentPoolGetInfo(a agentH, p poolH, attr uint32, out unsafe.Pointer) hsaStatus
	PoolAllocate(p poolH, size uint64) (uintptr, hsaStatus)
	PoolFree(ptr uintptr) hsaStatus
	AllowAccess(agents []agentH, ptr uintptr) hsaStatus

	SignalCreate(initial int64) (signalH, hsaStatus)
	SignalDestroy(s signalH) hsaStatus
	SignalLoad(s signalH) int64              // _scacquire
	SignalStore(s signalH, v int64)          // _screlease
	SignalAdd(s signalH, v int64)            // _scacq_screl
	SignalCAS(s signalH, old, v int64) int64 // _scacq_screl
	SignalExchange(s signalH, v int64) int64 // _scacq_screl
	SignalWait(s signalH, cond uint32, cmp int64, timeoutTicks uint64, hint uint32) int64

	// QueueCreate creates a queue whose errors reach queueError with data.
	QueueCreate(a agentH, size, typ uint32, data uintptr) (uintptr, hsaStatus)
	QueueDestroy(q uintptr) hsaStatus
	ProfilingSetProfilerEnabled(q uintptr, enable bool) hsaStatus
	ProfilingAsyncCopyEnable(enable bool) hsaStatus
	ProfilingGetDispatchTime(a agentH, s signalH) (start, end uint64, st hsaStatus)
	ProfilingGetAsyncCopyTime(s signalH) (start, end uint64, st hsaStatus)

	MemoryAsyncCopy(dst uintptr, dstAgent agentH, src uintptr, srcAgent agentH, size uint64, deps []signalH, done signalH) hsaStatus
	MemoryFill(ptr uintptr, value uint32, count uint64) hsaStatus
	// MemoryAsyncCopyRect is hsa_amd_memory_async_copy_rect (optional in
	// the library) with zero offsets: the ends start at their bases.
	MemoryAsyncCopyRect(dst, src pitchedPtr, rng dim3, copyAgent agentH, dir uint32, deps []signalH, done signalH) hsaStatus

	// Shared virtual memory (managed memory). Optional in the library:
	// lib answers StatusErrorNotSupported where they are absent.
	SVMAttributesSet(ptr uintptr, size uint64, attrs []svmAttribute) hsaStatus
	SVMPrefetchAsync(ptr uintptr, size uint64, a agentH, deps []signalH, done signalH) hsaStatus

	// Interprocess memory and signals (ipc.go). Optional in the library:
	// lib answers StatusErrorNotSupported where they are absent.
	IPCMemoryCreate(ptr uintptr, size uint64) (ipcH, hsaStatus)
	IPCMemoryAttach(h *ipcH, size uint64, agents []agentH) (uintptr, hsaStatus)
	IPCMemoryDetach(ptr uintptr) hsaStatus
	SignalCreateIPC(initial int64) (signalH, hsaStatus) // hsa_amd_signal_create with HSA_AMD_SIGNAL_IPC
	IPCSignalCreate(s signalH) (ipcH, hsaStatus)
	IPCSignalAttach(h *ipcH) (signalH, hsaStatus)

	CodeObjectReaderCreateFromMemory(ptr uintptr, size uint64) (readerH, hsaStatus)
	CodeObjectReaderDestroy(r readerH) hsaStatus
	ExecutableCreateAlt(profile, rounding uint32) (exeH, hsaStatus)
	ExecutableLoadAgentCodeObject(e exeH, a agentH, r readerH) hsaStatus
	ExecutableFreeze(e exeH) hsaStatus
	ExecutableGetSymbolByName(e exeH, name string, a agentH) (symbolH, hsaStatus)
	ExecutableSymbolGetInfo(s symbolH, attr uint32, out unsafe.Pointer) hsaStatus
	ExecutableDestroy(e exeH) hsaStatus
}

// Values of hsa.h, hsa_ext_amd.h and amd_hsa_queue.h that the driver uses;
// abi_test.go checks every one against the installed headers.
const (
	hsaSuccess   hsaStatus = 0x0 // HSA_STATUS_SUCCESS
	hsaInfoBreak hsaStatus = 0x1 // HSA_STATUS_INFO_BREAK

	sysVersionMajor       = 0     // HSA_SYSTEM_INFO_VERSION_MAJOR, uint16_t
	sysVersionMinor       = 1     // HSA_SYSTEM_INFO_VERSION_MINOR, uint16_t
	sysTimestampFrequency = 3     // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, uint64_t
	sysSVMSupported       = 0x201 // HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, bool
	sysSVMAccessDefault   = 0x202 // HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, bool

	svmAttribGlobalFlag        = 0     // HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG, hsa_amd_svm_model_t
	svmAttribPreferredLocation = 4     // HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION, hsa_agent_t
	svmAttribReadMostly        = 6     // HSA_AMD_SVM_ATTRIB_READ_MOSTLY, bool
	svmAttribAgentAccessible   = 0x200 // HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE, hsa_agent_t
	svmAttribAccessibleInPlace = 0x201 // HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE, hsa_agent_t
	svmGlobalFlagCoarseGrained = 1     // HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED
	signalAttrIPC              = 2     // HSA_AMD_SIGNAL_IPC

	copyHostToDevice   = 1 // hsaHostToDevice
	copyDeviceToHost   = 2 // hsaDeviceToHost
	copyDeviceToDevice = 3 // hsaDeviceToDevice

	agentName          = 0  // HSA_AGENT_INFO_NAME, char[64]
	agentVendor        = 1  // HSA_AGENT_INFO_VENDOR_NAME, char[64]
	agentFeature       = 2  // HSA_AGENT_INFO_FEATURE, uint32_t
	agentWavefrontSize = 6  // HSA_AGENT_INFO_WAVEFRONT_SIZE, uint32_t
	agentWGMaxDim      = 7  // HSA_AGENT_INFO_WORKGROUP_MAX_DIM, uint16_t[3]
	agentWGMaxSize     = 8  // HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, uint32_t
	agentGridMaxDim    = 9  // HSA_AGENT_INFO_GRID_MAX_DIM, hsa_dim3_t
	agentGridMaxSize   = 10 // HSA_AGENT_INFO_GRID_MAX_SIZE, uint32_t
	agentQueuesMax     = 12 // HSA_AGENT_INFO_QUEUES_MAX, uint32_t
	agentQueueMinSize  = 13 // HSA_AGENT_INFO_QUEUE_MIN_SIZE, uint32_t
	agentQueueMaxSize  = 14 // HSA_AGENT_INFO_QUEUE_MAX_SIZE, uint32_t
	agentNode          = 16 // HSA_AGENT_INFO_NODE, uint32_t
	agentDevice        = 17 // HSA_AGENT_INFO_DEVICE, hsa_device_type_t
	agentCacheSize     = 18 // HSA_AGENT_INFO_CACHE_SIZE, uint32_t[4]

	featureKernelDispatch = 1 // HSA_AGENT_FEATURE_KERNEL_DISPATCH

	amdComputeUnitCount  = 0xA002 // HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, uint32_t
	amdMaxClockMHz       = 0xA003 // HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, uint32_t
	amdBDFID             = 0xA006 // HSA_AMD_AGENT_INFO_BDFID, uint32_t
	amdMemoryWidth       = 0xA007 // HSA_AMD_AGENT_INFO_MEMORY_WIDTH, uint32_t
	amdMemoryMaxMHz      = 0xA008 // HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY, uint32_t
	amdProductName       = 0xA009 // HSA_AMD_AGENT_INFO_PRODUCT_NAME, char[64]
	amdMaxWavesPerCU     = 0xA00A // HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU, uint32_t
	amdDomain            = 0xA00F // HSA_AMD_AGENT_INFO_DOMAIN, uint32_t
	amdCooperativeQueues = 0xA010 // HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES, bool
	amdUUID              = 0xA011 // HSA_AMD_AGENT_INFO_UUID, char[21]
	amdMemoryAvail       = 0xA015 // HSA_AMD_AGENT_INFO_MEMORY_AVAIL, uint64_t

	isaNameLength = 0 // HSA_ISA_INFO_NAME_LENGTH, uint32_t
	isaName       = 1 // HSA_ISA_INFO_NAME, char[NAME_LENGTH]

	poolSegment         = 0  // HSA_AMD_MEMORY_POOL_INFO_SEGMENT, hsa_amd_segment_t
	poolGlobalFlags     = 1  // HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, uint32_t
	poolSize            = 2  // HSA_AMD_MEMORY_POOL_INFO_SIZE, size_t
	poolAllocAllowed    = 5  // HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, bool
	poolAllocGranule    = 6  // HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, size_t
	poolAllocAlignment  = 7  // HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT, size_t
	poolAccessibleByAll = 15 // HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL, bool

	agentPoolAccess       = 0 // HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, hsa_amd_memory_pool_access_t
	accessNeverAllowed    = 0 // HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED
	accessAllowedDefault  = 1 // HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT
	accessDisallowDefault = 2 // HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT

	symKernelObject  = 22 // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, uint64_t
	symKernargSize   = 11 // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, uint32_t
	symKernargAlign  = 12 // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT, uint32_t
	symGroupSize     = 13 // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, uint32_t
	symPrivateSize   = 14 // HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, uint32_t
	symType          = 0  // HSA_EXECUTABLE_SYMBOL_INFO_TYPE, hsa_symbol_kind_t
	symVariableAddr  = 21 // HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, uint64_t
	symVariableSize  = 9  // HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE, uint32_t
	symKindVariable  = 0  // HSA_SYMBOL_KIND_VARIABLE
	profileFull      = 1  // HSA_PROFILE_FULL
	roundingDefault  = 0  // HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT
	segmentSizeAny   = ^uint32(0)
	waitForeverTicks = ^uint64(0)

	// hsa_queue_t, at the start of amd_queue_t.
	hsaQueueBase     = 8  // offsetof(hsa_queue_t, base_address)
	hsaQueueDoorbell = 16 // offsetof(hsa_queue_t, doorbell_signal)
	hsaQueueSize     = 24 // offsetof(hsa_queue_t, size)
	hsaQueueID       = 32 // offsetof(hsa_queue_t, id)
	// amd_queue_t's dispatch ids are the queue's write and read indexes.
	amdQueueWriteDispatchID = 56  // offsetof(amd_queue_t, write_dispatch_id)
	amdQueueReadDispatchID  = 128 // offsetof(amd_queue_t, read_dispatch_id)
	amdQueueBytes           = 256 // sizeof(amd_queue_t)
)
