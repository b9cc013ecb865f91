package rocr

import "github.com/hipgo/hipgo/rocr/hsa"

// Sentinel errors, re-exported where users of the runtime meet them:
// errors.Is matches an *hsa.Error (the error rocr and its drivers return:
// an hsa.Status, the operation, a message and the cause it wraps) against
// the one of its status's class (see hsa.ErrInvalidArgument).
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
func Errorf(st hsa.Status, op, format string, args ...any) error {
	return hsa.Errorf(st, op, format, args...)
}
