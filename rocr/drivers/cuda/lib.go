package cuda

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/vendorlib"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// cuResult is CUresult.
type cuResult uintptr

// CUresult values the driver reacts to.
const (
	cudaSuccess      cuResult = 0
	cudaInvalidValue cuResult = 1
	cudaOutOfMemory  cuResult = 2
	cudaNoDevice     cuResult = 100
	cudaNotFound     cuResult = 500
	cudaNotReady     cuResult = 600
	cudaNotSupported cuResult = 801
)

// Device attributes (CUdevice_attribute).
const (
	attrMaxThreadsPerBlock      = 1
	attrMaxBlockDimX            = 2
	attrMaxGridDimX             = 5
	attrMaxSharedPerBlock       = 8
	attrTotalConstantMemory     = 9
	attrWarpSize                = 10
	attrMaxPitch                = 11
	attrMaxRegistersPerBlock    = 12
	attrClockRate               = 13
	attrMultiprocessorCount     = 16
	attrIntegrated              = 18
	attrCanMapHostMemory        = 19
	attrConcurrentKernels       = 31
	attrECCEnabled              = 32
	attrPCIBusID                = 33
	attrPCIDeviceID             = 34
	attrMemoryClockRate         = 36
	attrGlobalMemoryBusWidth    = 37
	attrL2CacheSize             = 38
	attrMaxThreadsPerSM         = 39
	attrAsyncEngineCount        = 40
	attrUnifiedAddressing       = 41
	attrPCIDomainID             = 50
	attrComputeCapabilityMajor  = 75
	attrComputeCapabilityMinor  = 76
	attrMaxSharedPerSM          = 81
	attrMaxRegistersPerSM       = 82
	attrManagedMemory           = 83
	attrConcurrentManagedAccess = 89
	attrCooperativeLaunch       = 95
	attrMaxSharedPerBlockOptin  = 97
	attrMaxBlocksPerSM          = 106
	funcAttrMaxThreadsPerBlock  = 0
	funcAttrSharedSizeBytes     = 1
	funcAttrConstSizeBytes      = 2
	funcAttrLocalSizeBytes      = 3
	funcAttrNumRegs             = 4
	funcAttrPTXVersion          = 5
	funcAttrBinaryVersion       = 6
	funcAttrMaxDynamicSharedMem = 8
)

// Flags and option values of the driver API.
const (
	streamNonBlocking       = 0x1
	memHostAllocPortable    = 0x1
	memHostAllocDeviceMap   = 0x2
	memHostRegisterPortable = 0x1
	memHostRegisterDevMap   = 0x2
	streamWaitValueGEQ      = 0x0
	eventDisableTiming      = 0x2
	streamWaitValueEQ       = 0x1
	memOpWriteValue64       = 5
	jitInfoLogBuffer        = 3
	jitInfoLogBufferSize    = 4
	jitErrorLogBuffer       = 5
	jitErrorLogBufferSize   = 6
	launchParamEnd          = 0
	launchParamBufferPtr    = 1
	launchParamBufferSize   = 2
)

// api holds the entry points of libcuda.so.1. Required ones are resolved at
// Open; optional ones are 0 when the installed driver lacks them.
type api struct {
	cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet           uintptr
	cuDeviceGetAttribute, cuDeviceGetName, cuDeviceTotalMem             uintptr
	cuDeviceGetUuid, cuGetErrorName, cuGetErrorString                   uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease                 uintptr
	cuDevicePrimaryCtxReset                                             uintptr // optional
	cuCtxPushCurrent, cuCtxPopCurrent, cuCtxSetCurrent                  uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize, cuStreamQuery uintptr
	cuMemAlloc, cuMemFree, cuMemHostAlloc, cuMemFreeHost                uintptr
	cuMemHostRegister, cuMemHostUnregister, cuMemHostGetDevicePointer   uintptr
	cuMemcpyAsync, cuMemsetD8Async, cuMemsetD16Async, cuMemsetD32Async  uintptr
	cuMemsetD2D32Async                                                  uintptr
	cuModuleLoadDataEx, cuModuleUnload, cuModuleGetFunction             uintptr
	cuModuleGetGlobal                                                   uintptr // optional
	cuFuncGetAttribute, cuFuncSetAttribute, cuLaunchKernel              uintptr
	cuStreamWriteValue64, cuStreamWaitValue64, cuStreamBatchMemOp       uintptr // optional
	cuEventCreate, cuEventRecord, cuEventDestroy, cuStreamWaitEvent     uintptr // optional
	cuEventQuery                                                        uintptr // optional

	// Peer access (optional): see peer.go.
	cuDeviceCanAccessPeer, cuCtxEnablePeerAccess, cuCtxDisablePeerAccess uintptr

	// Occupancy calculator and 2-D copies (optional): see occupancy.go, copy2d.go.
	cuOccupancyMaxActiveBlocksPerMultiprocessor, cuOccupancyMaxPotentialBlockSize uintptr
	cuMemcpy2DAsync, cuMemsetD2D8Async                                            uintptr
	cuMemcpy3DAsync                                                               uintptr

	// Cooperative launch and managed memory (optional): see cooperative.go,
	// managed.go.
	cuLaunchKernelEx, cuMemAllocManaged, cuMemGetInfo uintptr
	cuOccupancyMaxPotentialClusterSize                uintptr
	cuCtxGetStreamPriorityRange                       uintptr
	cuMemPrefetchAsync, cuMemAdvise                   uintptr
	prefetchV2, adviseV2                              bool // the CUmemLocation forms (CUDA 12.2+, the only ones in 13)

	// Memory shared between processes (optional): see ipc.go.
	cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle uintptr
	cuMemGetAddressRange                                       uintptr

	// CUDA graphs (optional): see graph.go.
	cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiate uintptr
	cuGraphLaunch, cuGraphExecDestroy, cuGraphDestroy            uintptr
}

var lib struct {
	once sync.Once
	api  api
	err  error
}

// load opens libcuda once per process; the handle is never closed (libcuda
// does not survive dlclose well, and a later Init reuses it).
func load() (*api, error) {
	lib.once.Do(func() {
		h, err := vendorlib.CUDA.Open()
		if err != nil {
			lib.err = hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "open", "no NVIDIA driver: %v", err)
			return
		}
		lib.err = lib.api.resolve(h)
	})
	return &lib.api, lib.err
}

func (a *api) resolve(h *vendorlib.Handle) error {
	var missing []string
	opt := func(p *uintptr, names ...string) { *p = h.Sym(names...) }
	sym := func(p *uintptr, names ...string) {
		if opt(p, names...); *p == 0 {
			missing = append(missing, names[0])
		}
	}
	sym(&a.cuInit, "cuInit")
	sym(&a.cuDriverGetVersion, "cuDriverGetVersion")
	sym(&a.cuDeviceGetCount, "cuDeviceGetCount")
	sym(&a.cuDeviceGet, "cuDeviceGet")
	sym(&a.cuDeviceGetAttribute, "cuDeviceGetAttribute")
	sym(&a.cuDeviceGetName, "cuDeviceGetName")
	sym(&a.cuDeviceTotalMem, "cuDeviceTotalMem_v2")
	sym(&a.cuDeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid")
	sym(&a.cuGetErrorName, "cuGetErrorName")
	sym(&a.cuGetErrorString, "cuGetErrorString")
	sym(&a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
	sym(&a.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")
	opt(&a.cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset")
	sym(&a.cuCtxPushCurrent, "cuCtxPushCurrent_v2")
	sym(&a.cuCtxPopCurrent, "cuCtxPopCurrent_v2")
	sym(&a.cuCtxSetCurrent, "cuCtxSetCurrent")
	sym(&a.cuStreamCreate, "cuStreamCreate")
	sym(&a.cuStreamDestroy, "cuStreamDestroy_v2")
	sym(&a.cuStreamSynchronize, "cuStreamSynchronize")
	sym(&a.cuStreamQuery, "cuStreamQuery")
	sym(&a.cuMemAlloc, "cuMemAlloc_v2")
	sym(&a.cuMemFree, "cuMemFree_v2")
	sym(&a.cuMemHostAlloc, "cuMemHostAlloc")
	sym(&a.cuMemFreeHost, "cuMemFreeHost")
	sym(&a.cuMemHostRegister, "cuMemHostRegister_v2", "cuMemHostRegister")
	sym(&a.cuMemHostUnregister, "cuMemHostUnregister")
	sym(&a.cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2")
	sym(&a.cuMemcpyAsync, "cuMemcpyAsync")
	sym(&a.cuMemsetD8Async, "cuMemsetD8Async")
	sym(&a.cuMemsetD16Async, "cuMemsetD16Async")
	sym(&a.cuMemsetD32Async, "cuMemsetD32Async")
	sym(&a.cuMemsetD2D32Async, "cuMemsetD2D32Async")
	sym(&a.cuModuleLoadDataEx, "cuModuleLoadDataEx")
	sym(&a.cuModuleUnload, "cuModuleUnload")
	sym(&a.cuModuleGetFunction, "cuModuleGetFunction")
	opt(&a.cuModuleGetGlobal, "cuModuleGetGlobal_v2")
	sym(&a.cuFuncGetAttribute, "cuFuncGetAttribute")
	sym(&a.cuLaunchKernel, "cuLaunchKernel")
	opt(&a.cuFuncSetAttribute, "cuFuncSetAttribute")
	// CUDA 12 made stream memory operations core (the _v2 entry points);
	// the v1 ones need a capability attribute that reads 0 there.
	opt(&a.cuStreamWriteValue64, "cuStreamWriteValue64_v2")
	opt(&a.cuStreamWaitValue64, "cuStreamWaitValue64_v2")
	opt(&a.cuStreamBatchMemOp, "cuStreamBatchMemOp_v2")
	opt(&a.cuEventCreate, "cuEventCreate")
	opt(&a.cuEventRecord, "cuEventRecord")
	opt(&a.cuEventDestroy, "cuEventDestroy_v2")
	opt(&a.cuStreamWaitEvent, "cuStreamWaitEvent")
	opt(&a.cuEventQuery, "cuEventQuery")
	opt(&a.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer")
	opt(&a.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess")
	opt(&a.cuCtxDisablePeerAccess, "cuCtxDisablePeerAccess")
	opt(&a.cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
	opt(&a.cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize")
	opt(&a.cuMemcpy2DAsync, "cuMemcpy2DAsync_v2")
	opt(&a.cuMemcpy3DAsync, "cuMemcpy3DAsync_v2")
	opt(&a.cuLaunchKernelEx, "cuLaunchKernelEx")
	opt(&a.cuOccupancyMaxPotentialClusterSize, "cuOccupancyMaxPotentialClusterSize")
	opt(&a.cuMemAllocManaged, "cuMemAllocManaged")
	opt(&a.cuMemGetInfo, "cuMemGetInfo_v2")
	opt(&a.cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange")
	// CUDA 12.2 added the CUmemLocation forms; 13 kept only them in cuda.h.
	opt(&a.cuMemPrefetchAsync, "cuMemPrefetchAsync_v2")
	if a.prefetchV2 = a.cuMemPrefetchAsync != 0; !a.prefetchV2 {
		opt(&a.cuMemPrefetchAsync, "cuMemPrefetchAsync")
	}
	opt(&a.cuMemAdvise, "cuMemAdvise_v2")
	if a.adviseV2 = a.cuMemAdvise != 0; !a.adviseV2 {
		opt(&a.cuMemAdvise, "cuMemAdvise")
	}
	opt(&a.cuMemsetD2D8Async, "cuMemsetD2D8Async_v2", "cuMemsetD2D8Async")
	opt(&a.cuIpcGetMemHandle, "cuIpcGetMemHandle")
	opt(&a.cuIpcOpenMemHandle, "cuIpcOpenMemHandle_v2")
	opt(&a.cuIpcCloseMemHandle, "cuIpcCloseMemHandle")
	opt(&a.cuMemGetAddressRange, "cuMemGetAddressRange_v2")
	// The v1 cuStreamBeginCapture (CUDA 10.0) takes no capture mode.
	opt(&a.cuStreamBeginCapture, "cuStreamBeginCapture_v2")
	opt(&a.cuStreamEndCapture, "cuStreamEndCapture")
	opt(&a.cuGraphInstantiate, "cuGraphInstantiateWithFlags")
	opt(&a.cuGraphLaunch, "cuGraphLaunch")
	opt(&a.cuGraphExecDestroy, "cuGraphExecDestroy")
	opt(&a.cuGraphDestroy, "cuGraphDestroy")
	if len(missing) > 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "open", "libcuda lacks %s", strings.Join(missing, ", "))
	}
	return nil
}

// call invokes a driver entry point with integer arguments. Arguments that
// are addresses must point outside the Go heap (mmapped or driver memory),
// or be converted at a purego.SyscallN call site instead.
func call(f uintptr, args ...uintptr) cuResult {
	r, _, _ := purego.SyscallN(f, args...)
	return cuResult(r)
}

// res adapts purego.SyscallN's results for call sites that pass Go pointers.
func res(r, _, _ uintptr) cuResult { return cuResult(r) }

// cString reads a NUL-terminated C string.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	var n uintptr
	for *(*byte)(hostmem.At(p + n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(hostmem.At(p)), n))
}

func (r cuResult) String() string {
	a := &lib.api
	if a.cuGetErrorName == 0 {
		return fmt.Sprintf("CUresult %d", uintptr(r))
	}
	var name, desc uintptr
	_, _, _ = purego.SyscallN(a.cuGetErrorName, uintptr(r), uintptr(unsafe.Pointer(&name)))
	_, _, _ = purego.SyscallN(a.cuGetErrorString, uintptr(r), uintptr(unsafe.Pointer(&desc)))
	if name == 0 {
		return fmt.Sprintf("CUresult %d", uintptr(r))
	}
	return fmt.Sprintf("%s (%d): %s", cString(name), uintptr(r), cString(desc))
}

// status maps a CUresult onto the closest HSA status.
func (r cuResult) status() hsa.Status {
	switch r {
	case cudaInvalidValue:
		return hsa.StatusErrorInvalidArgument
	case cudaOutOfMemory:
		return hsa.StatusErrorOutOfResources
	case cudaNoDevice:
		return hsa.StatusErrorInvalidAgent
	case cudaNotSupported:
		return hsa.StatusErrorNotSupported
	}
	if r >= 200 && r < 300 { // image, PTX and JIT errors
		return hsa.StatusErrorInvalidCodeObject
	}
	if r >= 700 && r < 800 { // launch failures, illegal address, ...
		return hsa.StatusErrorException
	}
	return hsa.StatusError
}

// cuErr turns a failed call into an rocr error naming the entry point.
func cuErr(op, fn string, r cuResult) error {
	if r.lost() {
		return hsa.Errorf(r.status(), op, "%s: %v: %w", fn, r, hsa.ErrDeviceLost)
	}
	return hsa.Errorf(r.status(), op, "%s: %v", fn, r)
}

// lost reports the errors that CUDA makes sticky: the context is unusable
// until the primary context is reset.
func (r cuResult) lost() bool {
	switch r {
	case 700, 702, 714, 715, 716, 717, 718, 719: // illegal address, launch timeout, hardware stack error, illegal instruction, misaligned address, invalid address space, invalid PC, launch failed
		return true
	}
	return false
}
