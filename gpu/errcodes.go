package gpu

// The rest of hipError_t: codes hipgo itself does not return today, named
// so that a code from a HIP program, a log or a vendor library prints as
// HIP prints it (hipGetErrorName), with HIP's description
// (hipGetErrorString).
const (
	ErrProfilerDisabled            ErrorCode = 5
	ErrProfilerNotInitialized      ErrorCode = 6
	ErrProfilerAlreadyStarted      ErrorCode = 7
	ErrProfilerAlreadyStopped      ErrorCode = 8
	ErrInvalidPitchValue           ErrorCode = 12 // a pitch below the row's width (2-D and 3-D copies)
	ErrInvalidMemcpyDirection      ErrorCode = 21
	ErrInsufficientDriver          ErrorCode = 35
	ErrMissingConfiguration        ErrorCode = 52
	ErrPriorLaunchFailure          ErrorCode = 53
	ErrInvalidContext              ErrorCode = 201 // an IPC handle opened in the process that made it
	ErrContextAlreadyCurrent       ErrorCode = 202
	ErrMapFailed                   ErrorCode = 205
	ErrUnmapFailed                 ErrorCode = 206
	ErrArrayIsMapped               ErrorCode = 207
	ErrAlreadyMapped               ErrorCode = 208
	ErrAlreadyAcquired             ErrorCode = 210
	ErrNotMapped                   ErrorCode = 211
	ErrNotMappedAsArray            ErrorCode = 212
	ErrNotMappedAsPointer          ErrorCode = 213
	ErrECCNotCorrectable           ErrorCode = 214
	ErrUnsupportedLimit            ErrorCode = 215
	ErrContextAlreadyInUse         ErrorCode = 216
	ErrInvalidKernelFile           ErrorCode = 218
	ErrInvalidGraphicsContext      ErrorCode = 219
	ErrInvalidSource               ErrorCode = 300
	ErrSharedObjectSymbolNotFound  ErrorCode = 302
	ErrSharedObjectInitFailed      ErrorCode = 303
	ErrOperatingSystem             ErrorCode = 304
	ErrSetOnActiveProcess          ErrorCode = 708
	ErrAssert                      ErrorCode = 710
	ErrHostMemoryAlreadyRegistered ErrorCode = 712
	ErrHostMemoryNotRegistered     ErrorCode = 713
	ErrStreamCaptureWrongThread    ErrorCode = 908
	ErrGraphExecUpdateFailure      ErrorCode = 910
	ErrInvalidChannelDescriptor    ErrorCode = 911
	ErrInvalidTexture              ErrorCode = 912
	ErrRuntimeMemory               ErrorCode = 1052
	ErrRuntimeOther                ErrorCode = 1053
	ErrTbd                         ErrorCode = 1054
)

func init() {
	for c, n := range map[ErrorCode]string{
		ErrProfilerDisabled:            "hipErrorProfilerDisabled",
		ErrProfilerNotInitialized:      "hipErrorProfilerNotInitialized",
		ErrProfilerAlreadyStarted:      "hipErrorProfilerAlreadyStarted",
		ErrProfilerAlreadyStopped:      "hipErrorProfilerAlreadyStopped",
		ErrInvalidPitchValue:           "hipErrorInvalidPitchValue",
		ErrInvalidMemcpyDirection:      "hipErrorInvalidMemcpyDirection",
		ErrInsufficientDriver:          "hipErrorInsufficientDriver",
		ErrMissingConfiguration:        "hipErrorMissingConfiguration",
		ErrPriorLaunchFailure:          "hipErrorPriorLaunchFailure",
		ErrInvalidContext:              "hipErrorInvalidContext",
		ErrContextAlreadyCurrent:       "hipErrorContextAlreadyCurrent",
		ErrMapFailed:                   "hipErrorMapFailed",
		ErrUnmapFailed:                 "hipErrorUnmapFailed",
		ErrArrayIsMapped:               "hipErrorArrayIsMapped",
		ErrAlreadyMapped:               "hipErrorAlreadyMapped",
		ErrAlreadyAcquired:             "hipErrorAlreadyAcquired",
		ErrNotMapped:                   "hipErrorNotMapped",
		ErrNotMappedAsArray:            "hipErrorNotMappedAsArray",
		ErrNotMappedAsPointer:          "hipErrorNotMappedAsPointer",
		ErrECCNotCorrectable:           "hipErrorECCNotCorrectable",
		ErrUnsupportedLimit:            "hipErrorUnsupportedLimit",
		ErrContextAlreadyInUse:         "hipErrorContextAlreadyInUse",
		ErrInvalidKernelFile:           "hipErrorInvalidKernelFile",
		ErrInvalidGraphicsContext:      "hipErrorInvalidGraphicsContext",
		ErrInvalidSource:               "hipErrorInvalidSource",
		ErrSharedObjectSymbolNotFound:  "hipErrorSharedObjectSymbolNotFound",
		ErrSharedObjectInitFailed:      "hipErrorSharedObjectInitFailed",
		ErrOperatingSystem:             "hipErrorOperatingSystem",
		ErrSetOnActiveProcess:          "hipErrorSetOnActiveProcess",
		ErrAssert:                      "hipErrorAssert",
		ErrHostMemoryAlreadyRegistered: "hipErrorHostMemoryAlreadyRegistered",
		ErrHostMemoryNotRegistered:     "hipErrorHostMemoryNotRegistered",
		ErrStreamCaptureWrongThread:    "hipErrorStreamCaptureWrongThread",
		ErrGraphExecUpdateFailure:      "hipErrorGraphExecUpdateFailure",
		ErrInvalidChannelDescriptor:    "hipErrorInvalidChannelDescriptor",
		ErrInvalidTexture:              "hipErrorInvalidTexture",
		ErrRuntimeMemory:               "hipErrorRuntimeMemory",
		ErrRuntimeOther:                "hipErrorRuntimeOther",
		ErrTbd:                         "hipErrorTbd",
	} {
		codeNames[c] = n
	}
}

// codeDescriptions are hipGetErrorString's texts.
var codeDescriptions = map[ErrorCode]string{
	Success:                        "no error",
	ErrInvalidValue:                "invalid argument",
	ErrOutOfMemory:                 "out of memory",
	ErrNotInitialized:              "initialization error",
	ErrDeinitialized:               "driver shutting down",
	ErrProfilerDisabled:            "profiler disabled while using external profiling tool",
	ErrProfilerNotInitialized:      "profiler is not initialized",
	ErrProfilerAlreadyStarted:      "profiler already started",
	ErrProfilerAlreadyStopped:      "profiler already stopped",
	ErrInvalidConfiguration:        "invalid configuration argument",
	ErrInvalidPitchValue:           "invalid pitch argument",
	ErrInvalidSymbol:               "invalid device symbol",
	ErrInvalidDevicePointer:        "invalid device pointer",
	ErrInvalidMemcpyDirection:      "invalid copy direction for memcpy",
	ErrInsufficientDriver:          "driver version is insufficient for runtime version",
	ErrMissingConfiguration:        "__global__ function call is not configured",
	ErrPriorLaunchFailure:          "unspecified launch failure in prior launch",
	ErrInvalidDeviceFunction:       "invalid device function",
	ErrNoDevice:                    "no ROCm-capable device is detected",
	ErrInvalidDevice:               "invalid device ordinal",
	ErrInvalidImage:                "device kernel image is invalid",
	ErrInvalidContext:              "invalid device context",
	ErrContextAlreadyCurrent:       "context is already current context",
	ErrMapFailed:                   "mapping of buffer object failed",
	ErrUnmapFailed:                 "unmapping of buffer object failed",
	ErrArrayIsMapped:               "array is mapped",
	ErrAlreadyMapped:               "resource already mapped",
	ErrNoBinaryForGpu:              "no kernel image is available for execution on the device",
	ErrAlreadyAcquired:             "resource already acquired",
	ErrNotMapped:                   "resource not mapped",
	ErrNotMappedAsArray:            "resource not mapped as array",
	ErrNotMappedAsPointer:          "resource not mapped as pointer",
	ErrECCNotCorrectable:           "uncorrectable ECC error encountered",
	ErrUnsupportedLimit:            "limit is not supported on this architecture",
	ErrContextAlreadyInUse:         "exclusive-thread device already in use by a different thread",
	ErrPeerAccessUnsupported:       "peer access is not supported between these two devices",
	ErrInvalidKernelFile:           "invalid kernel file",
	ErrInvalidGraphicsContext:      "invalid OpenGL or DirectX context",
	ErrInvalidSource:               "device kernel image is invalid",
	ErrFileNotFound:                "file not found",
	ErrSharedObjectSymbolNotFound:  "shared object symbol not found",
	ErrSharedObjectInitFailed:      "shared object initialization failed",
	ErrOperatingSystem:             "OS call failed or operation not supported on this OS",
	ErrInvalidHandle:               "invalid resource handle",
	ErrIllegalState:                "the operation cannot be performed in the present state",
	ErrNotFound:                    "named symbol not found",
	ErrNotReady:                    "device not ready",
	ErrIllegalAddress:              "an illegal memory access was encountered",
	ErrLaunchOutOfResources:        "too many resources requested for launch",
	ErrLaunchTimeOut:               "the launch timed out and was terminated",
	ErrPeerAccessAlreadyEnabled:    "peer access is already enabled",
	ErrPeerAccessNotEnabled:        "peer access has not been enabled",
	ErrSetOnActiveProcess:          "cannot set while device is active in this process",
	ErrContextIsDestroyed:          "context is destroyed",
	ErrAssert:                      "device-side assert triggered",
	ErrHostMemoryAlreadyRegistered: "part or all of the requested memory range is already mapped",
	ErrHostMemoryNotRegistered:     "pointer does not correspond to a registered memory region",
	ErrLaunchFailure:               "unspecified launch failure",
	ErrCooperativeLaunchTooLarge:   "too many blocks in cooperative launch",
	ErrNotPermitted:                "operation not permitted",
	ErrNotSupported:                "operation not supported",
	ErrStreamCaptureUnsupported:    "operation not permitted when stream is capturing",
	ErrStreamCaptureInvalidated:    "operation failed due to a previous error during capture",
	ErrStreamCaptureMerge:          "operation would result in a merge of separate capture sequences",
	ErrStreamCaptureUnmatched:      "capture was not ended in the same stream as it began",
	ErrStreamCaptureUnjoined:       "capturing stream has unjoined work",
	ErrStreamCaptureIsolation:      "dependency created on uncaptured work in another stream",
	ErrStreamCaptureImplicit:       "operation would make the legacy stream depend on a capturing blocking stream",
	ErrCapturedEvent:               "operation not permitted on an event last recorded in a capturing stream",
	ErrStreamCaptureWrongThread:    "attempt to terminate a thread-local capture sequence from another thread",
	ErrGraphExecUpdateFailure:      "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update",
	ErrInvalidChannelDescriptor:    "invalid channel descriptor",
	ErrInvalidTexture:              "invalid texture",
	ErrUnknown:                     "unknown error",
	ErrRuntimeMemory:               "runtime memory call returned error",
	ErrRuntimeOther:                "runtime call other than memory returned error",
	ErrTbd:                         "marker that more error codes are needed",
}

// Description is HIP's text for the code (hipGetErrorString); a code HIP
// does not name is "unknown error", as hipGetErrorString answers.
func (c ErrorCode) Description() string {
	if d, ok := codeDescriptions[c]; ok {
		return d
	}
	return codeDescriptions[ErrUnknown]
}
