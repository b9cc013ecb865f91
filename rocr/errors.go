package rocr

import "github.com/hipgo/hipgo/rocr/hsa"

// Status is hsa_status_t, with hsa.h's and hsa_ext_amd.h's numeric values
// (see hsa.Status).
type Status = hsa.Status

// Error is the error rocr and its drivers return: a Status, the operation
// and a message, and the cause it wraps (see hsa.Error).
type Error = hsa.Error

// Status codes of hsa.h and hsa_ext_amd.h, as hsa declares them.
const (
	StatusSuccess                      = hsa.StatusSuccess
	StatusInfoBreak                    = hsa.StatusInfoBreak
	StatusError                        = hsa.StatusError
	StatusErrorInvalidArgument         = hsa.StatusErrorInvalidArgument
	StatusErrorInvalidQueueCreation    = hsa.StatusErrorInvalidQueueCreation
	StatusErrorInvalidAllocation       = hsa.StatusErrorInvalidAllocation
	StatusErrorInvalidAgent            = hsa.StatusErrorInvalidAgent
	StatusErrorInvalidRegion           = hsa.StatusErrorInvalidRegion
	StatusErrorInvalidSignal           = hsa.StatusErrorInvalidSignal
	StatusErrorInvalidQueue            = hsa.StatusErrorInvalidQueue
	StatusErrorOutOfResources          = hsa.StatusErrorOutOfResources
	StatusErrorInvalidPacketFormat     = hsa.StatusErrorInvalidPacketFormat
	StatusErrorResourceFree            = hsa.StatusErrorResourceFree
	StatusErrorNotInitialized          = hsa.StatusErrorNotInitialized
	StatusErrorRefcountOverflow        = hsa.StatusErrorRefcountOverflow
	StatusErrorIncompatibleArguments   = hsa.StatusErrorIncompatibleArguments
	StatusErrorInvalidIndex            = hsa.StatusErrorInvalidIndex
	StatusErrorInvalidISA              = hsa.StatusErrorInvalidISA
	StatusErrorInvalidCodeObject       = hsa.StatusErrorInvalidCodeObject
	StatusErrorInvalidExecutable       = hsa.StatusErrorInvalidExecutable
	StatusErrorFrozenExecutable        = hsa.StatusErrorFrozenExecutable
	StatusErrorInvalidSymbolName       = hsa.StatusErrorInvalidSymbolName
	StatusErrorVariableAlreadyDefined  = hsa.StatusErrorVariableAlreadyDefined
	StatusErrorVariableUndefined       = hsa.StatusErrorVariableUndefined
	StatusErrorException               = hsa.StatusErrorException
	StatusErrorInvalidISAName          = hsa.StatusErrorInvalidISAName
	StatusErrorInvalidCodeSymbol       = hsa.StatusErrorInvalidCodeSymbol
	StatusErrorInvalidExecutableSymbol = hsa.StatusErrorInvalidExecutableSymbol
	StatusErrorInvalidFile             = hsa.StatusErrorInvalidFile
	StatusErrorInvalidCodeObjectReader = hsa.StatusErrorInvalidCodeObjectReader
	StatusErrorInvalidCache            = hsa.StatusErrorInvalidCache
	StatusErrorInvalidWavefront        = hsa.StatusErrorInvalidWavefront
	StatusErrorInvalidSignalGroup      = hsa.StatusErrorInvalidSignalGroup
	StatusErrorInvalidRuntimeState     = hsa.StatusErrorInvalidRuntimeState
	StatusErrorFatal                   = hsa.StatusErrorFatal
	StatusErrorInvalidMemoryPool       = hsa.StatusErrorInvalidMemoryPool
	StatusErrorMemoryApertureViolation = hsa.StatusErrorMemoryApertureViolation
	StatusErrorIllegalInstruction      = hsa.StatusErrorIllegalInstruction
	StatusErrorMemoryFault             = hsa.StatusErrorMemoryFault
	StatusCUMaskReduced                = hsa.StatusCUMaskReduced
	StatusErrorOutOfRegisters          = hsa.StatusErrorOutOfRegisters
	StatusErrorResourceBusy            = hsa.StatusErrorResourceBusy
	StatusErrorNotSupported            = hsa.StatusErrorNotSupported
)

// Sentinel errors: errors.Is matches an *Error against the one of its
// Status's class (see hsa.ErrInvalidArgument).
var (
	ErrInvalidArgument   = hsa.ErrInvalidArgument
	ErrOutOfResources    = hsa.ErrOutOfResources
	ErrNotOwner          = hsa.ErrNotOwner
	ErrNoAgent           = hsa.ErrNoAgent
	ErrNotSupported      = hsa.ErrNotSupported
	ErrNotInitialized    = hsa.ErrNotInitialized
	ErrInvalidSignal     = hsa.ErrInvalidSignal
	ErrInvalidQueue      = hsa.ErrInvalidQueue
	ErrInvalidPacket     = hsa.ErrInvalidPacket
	ErrInvalidAllocation = hsa.ErrInvalidAllocation
	ErrInvalidCodeObject = hsa.ErrInvalidCodeObject
	ErrKernelFailed      = hsa.ErrKernelFailed
	ErrTimeout           = hsa.ErrTimeout
)

// Errorf returns an *Error with the given status and formatted message. The
// message's %w verb, if any, is kept as the cause.
func Errorf(st Status, op, format string, args ...any) error {
	return hsa.Errorf(st, op, format, args...)
}

// Newf is Errorf with an explicit sentinel, for conditions that have no HSA
// status of their own (ErrNotOwner, ErrNotSupported, ErrTimeout, ...).
func Newf(sentinel error, st Status, op, format string, args ...any) error {
	return hsa.Newf(sentinel, st, op, format, args...)
}

// StatusOf returns the status carried by err, StatusSuccess for nil and
// StatusError when err carries none.
func StatusOf(err error) Status { return hsa.StatusOf(err) }

// Statuses lists every status code this package knows, for tests and tools.
func Statuses() []Status { return hsa.Statuses() }
