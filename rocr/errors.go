package rocr

import "github.com/hipgo/hipgo/rocr/hsa"

// Status is hsa_status_t, with hsa.h's and hsa_ext_amd.h's numeric values
// (see hsa.Status).
type Status = hsa.Status

// Error is the error rocr and its drivers return: a Status, the operation
// and a message, and the cause it wraps (see hsa.Error).
type Error = hsa.Error

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
