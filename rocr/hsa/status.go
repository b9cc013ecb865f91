package hsa

import "fmt"

// Status is hsa_status_t, with hsa.h's and hsa_ext_amd.h's numeric values.
type Status uint32

// Status codes of hsa.h.
const (
	StatusSuccess                      Status = 0x0
	StatusInfoBreak                    Status = 0x1
	StatusError                        Status = 0x1000
	StatusErrorInvalidArgument         Status = 0x1001
	StatusErrorInvalidQueueCreation    Status = 0x1002
	StatusErrorInvalidAllocation       Status = 0x1003
	StatusErrorInvalidAgent            Status = 0x1004
	StatusErrorInvalidRegion           Status = 0x1005
	StatusErrorInvalidSignal           Status = 0x1006
	StatusErrorInvalidQueue            Status = 0x1007
	StatusErrorOutOfResources          Status = 0x1008
	StatusErrorInvalidPacketFormat     Status = 0x1009
	StatusErrorResourceFree            Status = 0x100A
	StatusErrorNotInitialized          Status = 0x100B
	StatusErrorRefcountOverflow        Status = 0x100C
	StatusErrorIncompatibleArguments   Status = 0x100D
	StatusErrorInvalidIndex            Status = 0x100E
	StatusErrorInvalidISA              Status = 0x100F
	StatusErrorInvalidCodeObject       Status = 0x1010
	StatusErrorInvalidExecutable       Status = 0x1011
	StatusErrorFrozenExecutable        Status = 0x1012
	StatusErrorInvalidSymbolName       Status = 0x1013
	StatusErrorVariableAlreadyDefined  Status = 0x1014
	StatusErrorVariableUndefined       Status = 0x1015
	StatusErrorException               Status = 0x1016
	StatusErrorInvalidISAName          Status = 0x1017
	StatusErrorInvalidCodeSymbol       Status = 0x1018
	StatusErrorInvalidExecutableSymbol Status = 0x1019
	StatusErrorInvalidFile             Status = 0x1020
	StatusErrorInvalidCodeObjectReader Status = 0x1021
	StatusErrorInvalidCache            Status = 0x1022
	StatusErrorInvalidWavefront        Status = 0x1023
	StatusErrorInvalidSignalGroup      Status = 0x1024
	StatusErrorInvalidRuntimeState     Status = 0x1025
	StatusErrorFatal                   Status = 0x1026
)

// Status codes of hsa_ext_amd.h (HSA_STATUS_ERROR_INVALID_MEMORY_POOL and on).
const (
	StatusErrorInvalidMemoryPool       Status = 40
	StatusErrorMemoryApertureViolation Status = 41
	StatusErrorIllegalInstruction      Status = 42
	StatusErrorMemoryFault             Status = 43
	StatusCUMaskReduced                Status = 44
	StatusErrorOutOfRegisters          Status = 45
	StatusErrorResourceBusy            Status = 46
	StatusErrorNotSupported            Status = 47
)

var statusNames = map[Status][2]string{
	StatusSuccess:                      {"HSA_STATUS_SUCCESS", "the function has been executed successfully"},
	StatusInfoBreak:                    {"HSA_STATUS_INFO_BREAK", "a traversal over a list of elements has been interrupted by the application before completing"},
	StatusError:                        {"HSA_STATUS_ERROR", "a generic error has occurred"},
	StatusErrorInvalidArgument:         {"HSA_STATUS_ERROR_INVALID_ARGUMENT", "one of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument"},
	StatusErrorInvalidQueueCreation:    {"HSA_STATUS_ERROR_INVALID_QUEUE_CREATION", "the requested queue creation is not valid"},
	StatusErrorInvalidAllocation:       {"HSA_STATUS_ERROR_INVALID_ALLOCATION", "the requested allocation is not valid"},
	StatusErrorInvalidAgent:            {"HSA_STATUS_ERROR_INVALID_AGENT", "the agent is invalid"},
	StatusErrorInvalidRegion:           {"HSA_STATUS_ERROR_INVALID_REGION", "the memory region is invalid"},
	StatusErrorInvalidSignal:           {"HSA_STATUS_ERROR_INVALID_SIGNAL", "the signal is invalid"},
	StatusErrorInvalidQueue:            {"HSA_STATUS_ERROR_INVALID_QUEUE", "the queue is invalid"},
	StatusErrorOutOfResources:          {"HSA_STATUS_ERROR_OUT_OF_RESOURCES", "the runtime failed to allocate the necessary resources"},
	StatusErrorInvalidPacketFormat:     {"HSA_STATUS_ERROR_INVALID_PACKET_FORMAT", "the AQL packet is malformed"},
	StatusErrorResourceFree:            {"HSA_STATUS_ERROR_RESOURCE_FREE", "an error has been detected while releasing a resource"},
	StatusErrorNotInitialized:          {"HSA_STATUS_ERROR_NOT_INITIALIZED", "an API other than hsa_init has been invoked while the reference count of the HSA runtime is 0"},
	StatusErrorRefcountOverflow:        {"HSA_STATUS_ERROR_REFCOUNT_OVERFLOW", "the maximum reference count for the object has been reached"},
	StatusErrorIncompatibleArguments:   {"HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS", "the arguments passed to a functions are not compatible"},
	StatusErrorInvalidIndex:            {"HSA_STATUS_ERROR_INVALID_INDEX", "the index is invalid"},
	StatusErrorInvalidISA:              {"HSA_STATUS_ERROR_INVALID_ISA", "the instruction set architecture is invalid"},
	StatusErrorInvalidCodeObject:       {"HSA_STATUS_ERROR_INVALID_CODE_OBJECT", "the code object is invalid"},
	StatusErrorInvalidExecutable:       {"HSA_STATUS_ERROR_INVALID_EXECUTABLE", "the executable is invalid"},
	StatusErrorFrozenExecutable:        {"HSA_STATUS_ERROR_FROZEN_EXECUTABLE", "the executable is frozen"},
	StatusErrorInvalidSymbolName:       {"HSA_STATUS_ERROR_INVALID_SYMBOL_NAME", "there is no symbol with the given name"},
	StatusErrorVariableAlreadyDefined:  {"HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED", "the variable is already defined"},
	StatusErrorVariableUndefined:       {"HSA_STATUS_ERROR_VARIABLE_UNDEFINED", "the variable is undefined"},
	StatusErrorException:               {"HSA_STATUS_ERROR_EXCEPTION", "an HSAIL operation resulted in a hardware exception"},
	StatusErrorInvalidISAName:          {"HSA_STATUS_ERROR_INVALID_ISA_NAME", "the ISA name is invalid"},
	StatusErrorInvalidCodeSymbol:       {"HSA_STATUS_ERROR_INVALID_CODE_SYMBOL", "the code object symbol is invalid"},
	StatusErrorInvalidExecutableSymbol: {"HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL", "the executable symbol is invalid"},
	StatusErrorInvalidFile:             {"HSA_STATUS_ERROR_INVALID_FILE", "the file descriptor is invalid"},
	StatusErrorInvalidCodeObjectReader: {"HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER", "the code object reader is invalid"},
	StatusErrorInvalidCache:            {"HSA_STATUS_ERROR_INVALID_CACHE", "the cache is invalid"},
	StatusErrorInvalidWavefront:        {"HSA_STATUS_ERROR_INVALID_WAVEFRONT", "the wavefront is invalid"},
	StatusErrorInvalidSignalGroup:      {"HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP", "the signal group is invalid"},
	StatusErrorInvalidRuntimeState:     {"HSA_STATUS_ERROR_INVALID_RUNTIME_STATE", "the HSA runtime is not in the configuration state"},
	StatusErrorFatal:                   {"HSA_STATUS_ERROR_FATAL", "the queue received an error that may require process termination"},
	StatusErrorInvalidMemoryPool:       {"HSA_STATUS_ERROR_INVALID_MEMORY_POOL", "the memory pool is invalid"},
	StatusErrorMemoryApertureViolation: {"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "agent accessed memory beyond the maximum legal address"},
	StatusErrorIllegalInstruction:      {"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION", "agent executed an invalid shader instruction"},
	StatusErrorMemoryFault:             {"HSA_STATUS_ERROR_MEMORY_FAULT", "agent attempted to access an inaccessible address"},
	StatusCUMaskReduced:                {"HSA_STATUS_CU_MASK_REDUCED", "the CU mask was successfully set but the mask attempted to enable a CU which was disabled for the process"},
	StatusErrorOutOfRegisters:          {"HSA_STATUS_ERROR_OUT_OF_REGISTERS", "exceeded number of VGPRs available on this agent"},
	StatusErrorResourceBusy:            {"HSA_STATUS_ERROR_RESOURCE_BUSY", "resource is busy or temporarily unavailable"},
	StatusErrorNotSupported:            {"HSA_STATUS_ERROR_NOT_SUPPORTED", "request is not supported by this system"},
}

// Name is the C enumerator's name, e.g. "HSA_STATUS_ERROR_INVALID_ARGUMENT".
func (s Status) Name() string {
	if n, ok := statusNames[s]; ok {
		return n[0]
	}
	return fmt.Sprintf("HSA_STATUS(0x%x)", uint32(s))
}

// String is the text hsa_status_string gives for s.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n[0] + ": " + n[1]
	}
	return s.Name()
}

// Error makes a non-success Status usable as an error.
func (s Status) Error() string { return s.String() }

// Is makes a bare Status, returned or wrapped as an error, match the
// sentinel of its class, as an *Error carrying it does.
func (s Status) Is(target error) bool {
	if st, ok := target.(Status); ok {
		return st == s
	}
	return target != nil && target == sentinelOf(s)
}

// Statuses lists every status code this package knows, for tests and tools.
func Statuses() []Status {
	out := make([]Status, 0, len(statusNames))
	for s := range statusNames {
		out = append(out, s)
	}
	return out
}
