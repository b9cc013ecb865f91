package hsa

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/internal/errtext"
)

// Sentinel errors. Every error this package and its drivers return wraps a
// Status; errors.Is matches it against these sentinels and against the
// Status value itself.
var (
	ErrInvalidArgument   = errors.New("invalid argument")
	ErrOutOfResources    = errors.New("out of resources")
	ErrNotOwner          = errors.New("agent does not own the memory")
	ErrNoAgent           = errors.New("no agent")
	ErrNotSupported      = errors.New("not supported")
	ErrNotInitialized    = errors.New("runtime not initialized")
	ErrInvalidSignal     = errors.New("invalid signal")
	ErrInvalidQueue      = errors.New("invalid queue")
	ErrInvalidPacket     = errors.New("invalid packet format")
	ErrInvalidAllocation = errors.New("invalid allocation")
	ErrInvalidCodeObject = errors.New("invalid code object")
	ErrKernelFailed      = errors.New("kernel failed")
	ErrTimeout           = errors.New("timed out")
	// ErrOwnIPCHandle: an IPC handle opened in the process that made it,
	// which uses its memory or event directly (hipErrorInvalidContext).
	ErrOwnIPCHandle = errors.New("an IPC handle of this process")
	// ErrAbandoned marks the report of a kernel or host callback that was
	// given up on while it still ran (rocr's Queue.Abandon).
	ErrAbandoned = errors.New("kernel abandoned")
	// ErrDeviceLost marks a failure after which the agent's device keeps
	// no usable state (a kernel fault ends a CUDA context): drivers wrap
	// it, and from then on every queue, allocation and load on the agent
	// fails with an error that names the failure and says that Reset
	// recovers.
	ErrDeviceLost = errors.New("device lost")
)

// sentinelOf maps a status onto the sentinel that errors.Is matches.
func sentinelOf(s Status) error {
	switch s {
	case StatusErrorInvalidArgument, StatusErrorIncompatibleArguments, StatusErrorInvalidIndex, StatusErrorInvalidRegion, StatusErrorInvalidMemoryPool, StatusErrorInvalidSymbolName:
		return ErrInvalidArgument
	case StatusErrorOutOfResources, StatusErrorOutOfRegisters, StatusErrorRefcountOverflow:
		return ErrOutOfResources
	case StatusErrorInvalidAgent:
		return ErrNoAgent
	case StatusErrorNotSupported:
		return ErrNotSupported
	case StatusErrorNotInitialized:
		return ErrNotInitialized
	case StatusErrorInvalidSignal, StatusErrorInvalidSignalGroup:
		return ErrInvalidSignal
	case StatusErrorInvalidQueue, StatusErrorInvalidQueueCreation:
		return ErrInvalidQueue
	case StatusErrorInvalidPacketFormat:
		return ErrInvalidPacket
	case StatusErrorInvalidAllocation, StatusErrorResourceFree:
		return ErrInvalidAllocation
	case StatusErrorInvalidCodeObject, StatusErrorInvalidISA, StatusErrorInvalidISAName, StatusErrorInvalidExecutable, StatusErrorInvalidCodeObjectReader:
		return ErrInvalidCodeObject
	case StatusErrorException, StatusErrorMemoryFault, StatusErrorIllegalInstruction, StatusErrorMemoryApertureViolation:
		return ErrKernelFailed
	}
	return nil
}

// Error is the error type of rocr: a status, the sentinel it maps onto, the
// operation, and a message saying what was wrong.
type Error struct {
	Status   Status
	Sentinel error  // nil: derived from Status
	Op       string // e.g. "queue create"
	Msg      string
	Err      error // cause, may be nil
}

func (e *Error) Error() string {
	s := errtext.Join(e.Op, e.Msg, e.Err)
	if s == "" {
		s = e.Status.Name()
	}
	return errtext.Tag(s, e.Status.Name())
}

// Is matches the status, the sentinel of the status, and an explicit sentinel.
func (e *Error) Is(target error) bool {
	if st, ok := target.(Status); ok {
		return st == e.Status
	}
	if e.Sentinel != nil && target == e.Sentinel {
		return true
	}
	if s := sentinelOf(e.Status); s != nil && target == s {
		return true
	}
	return false
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given status and formatted message. The
// message's %w verb, if any, is kept as the cause.
func Errorf(st Status, op, format string, args ...any) error {
	e := &Error{Status: st, Op: op}
	w := fmt.Errorf(format, args...)
	e.Msg = w.Error()
	if u := errors.Unwrap(w); u != nil && !errtext.IsNilValue(u) {
		e.Err = u
		if e.Msg == u.Error() { // format was just "%w"
			e.Msg = ""
		}
		e.Msg = trimSuffix(e.Msg, ": "+u.Error())
	}
	return e
}

// Newf is Errorf with an explicit sentinel, for conditions that have no HSA
// status of their own (ErrNotOwner, ErrNotSupported, ErrTimeout, ...).
func Newf(sentinel error, st Status, op, format string, args ...any) error {
	err := Errorf(st, op, format, args...).(*Error)
	err.Sentinel = sentinel
	return err
}

// StatusOf returns the status carried by err, StatusSuccess for nil and
// StatusError when err carries none.
func StatusOf(err error) Status {
	if err == nil {
		return StatusSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	var s Status
	if errors.As(err, &s) {
		return s
	}
	return StatusError
}

func trimSuffix(s, suffix string) string {
	if len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)]
	}
	return s
}
