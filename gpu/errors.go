package gpu

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// ErrorCode is hipError_t, with HIP's numbers. It is an error itself, so
// each code is its own sentinel: errors.Is(err, gpu.ErrOutOfMemory), and
// gpu.CodeOf(err) == gpu.ErrOutOfMemory.
//
// Each code has one Go name: HIP's hipErrorX is gpu.ErrX (hipSuccess is
// gpu.Success). Its Name and Error are HIP's name.
type ErrorCode int

// HIP error codes that hipgo returns. The peer access codes are in
// peer.go, the stream capture codes in errors_capture.go.
const (
	Success                      ErrorCode = 0
	ErrInvalidValue              ErrorCode = 1
	ErrOutOfMemory               ErrorCode = 2
	ErrNotInitialized            ErrorCode = 3
	ErrDeinitialized             ErrorCode = 4
	ErrInvalidConfiguration      ErrorCode = 9
	ErrInvalidSymbol             ErrorCode = 13
	ErrInvalidDevicePointer      ErrorCode = 17
	ErrInvalidDeviceFunction     ErrorCode = 98
	ErrNoDevice                  ErrorCode = 100
	ErrInvalidDevice             ErrorCode = 101
	ErrInvalidImage              ErrorCode = 200
	ErrNoBinaryForGpu            ErrorCode = 209
	ErrFileNotFound              ErrorCode = 301
	ErrInvalidHandle             ErrorCode = 400
	ErrIllegalState              ErrorCode = 401
	ErrNotFound                  ErrorCode = 500
	ErrNotReady                  ErrorCode = 600
	ErrIllegalAddress            ErrorCode = 700
	ErrLaunchOutOfResources      ErrorCode = 701
	ErrLaunchTimeOut             ErrorCode = 702
	ErrContextIsDestroyed        ErrorCode = 709
	ErrLaunchFailure             ErrorCode = 719
	ErrCooperativeLaunchTooLarge ErrorCode = 720 // a cooperative grid larger than the device holds at once
	ErrNotPermitted              ErrorCode = 800
	ErrNotSupported              ErrorCode = 801
	ErrUnknown                   ErrorCode = 999
)

var codeNames = map[ErrorCode]string{
	Success:                      "hipSuccess",
	ErrInvalidValue:              "hipErrorInvalidValue",
	ErrOutOfMemory:               "hipErrorOutOfMemory",
	ErrNotInitialized:            "hipErrorNotInitialized",
	ErrDeinitialized:             "hipErrorDeinitialized",
	ErrInvalidConfiguration:      "hipErrorInvalidConfiguration",
	ErrInvalidSymbol:             "hipErrorInvalidSymbol",
	ErrInvalidDevicePointer:      "hipErrorInvalidDevicePointer",
	ErrInvalidDeviceFunction:     "hipErrorInvalidDeviceFunction",
	ErrNoDevice:                  "hipErrorNoDevice",
	ErrInvalidDevice:             "hipErrorInvalidDevice",
	ErrInvalidImage:              "hipErrorInvalidImage",
	ErrNoBinaryForGpu:            "hipErrorNoBinaryForGpu",
	ErrFileNotFound:              "hipErrorFileNotFound",
	ErrInvalidHandle:             "hipErrorInvalidHandle",
	ErrIllegalState:              "hipErrorIllegalState",
	ErrNotFound:                  "hipErrorNotFound",
	ErrNotReady:                  "hipErrorNotReady",
	ErrIllegalAddress:            "hipErrorIllegalAddress",
	ErrLaunchOutOfResources:      "hipErrorLaunchOutOfResources",
	ErrLaunchTimeOut:             "hipErrorLaunchTimeOut",
	ErrContextIsDestroyed:        "hipErrorContextIsDestroyed",
	ErrLaunchFailure:             "hipErrorLaunchFailure",
	ErrCooperativeLaunchTooLarge: "hipErrorCooperativeLaunchTooLarge",
	ErrNotPermitted:              "hipErrorNotPermitted",
	ErrNotSupported:              "hipErrorNotSupported",
	ErrUnknown:                   "hipErrorUnknown",
}

// Name is HIP's name for the code (hipGetErrorName): "hipErrorUnknown"
// for a code HIP does not name, as hipGetErrorName answers.
func (c ErrorCode) Name() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return codeNames[ErrUnknown]
}

// Error is the code's name; a code HIP does not name keeps its number:
// "hipErrorUnknown (-1)".
func (c ErrorCode) Error() string {
	if _, ok := codeNames[c]; ok {
		return c.Name()
	}
	return fmt.Sprintf("%s (%d)", codeNames[ErrUnknown], int(c))
}

// ErrNotOwner is rocr's sentinel, not a HIP code: coarse-grained memory
// used by an agent that does not own it. Its code is ErrInvalidValue.
var ErrNotOwner = hsa.ErrNotOwner

// Error is a failed hipgo call: the HIP code, the operation, what was
// wrong, and the underlying cause (often a rocr error carrying the HSA
// status).
type Error struct {
	Code ErrorCode
	Op   string
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	return errtext.Tag(errtext.Join(e.Op, e.Msg, e.Err), e.Code.Error())
}

// Is matches the HIP code.
func (e *Error) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && c == e.Code
}

func (e *Error) Unwrap() error { return e.Err }

// Status is the HSA status underneath, if any.
func (e *Error) Status() hsa.Status { return hsa.StatusOf(e.Err) }

// Errorf returns an *Error with code c.
func Errorf(c ErrorCode, op, format string, args ...any) error {
	return &Error{Code: c, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a rocr error into an *Error with the HIP code that fits it,
// keeping it as the cause; it is errs.Wrap for this package, which that
// package cannot import.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errtext.IsNilValue(err) {
		return &Error{Code: ErrLaunchFailure, Op: op, Msg: fmt.Sprintf("a nil %T was returned as an error", err)}
	}
	var ge *Error
	if errors.As(err, &ge) {
		return err
	}
	return &Error{Code: CodeOf(err), Op: op, Err: err}
}

// CodeOf picks the HIP code for an error. A bare ErrorCode, such as the
// gpu.ErrNotReady that queries return, is its own code; a rocr error gets
// the code of the first of rocrCodes it matches.
func CodeOf(err error) ErrorCode {
	var ge *Error
	var code ErrorCode
	switch {
	case err == nil:
		return Success
	case errtext.IsNilValue(err):
		return ErrLaunchFailure
	case errors.As(err, &ge):
		return ge.Code
	case errors.As(err, &code):
		return code
	}
	for _, m := range rocrCodes {
		if errors.Is(err, m.err) {
			return m.code
		}
	}
	switch hsa.StatusOf(err) {
	case hsa.StatusErrorException, hsa.StatusErrorInvalidPacketFormat:
		return ErrLaunchFailure
	}
	return ErrUnknown
}

// rocrCodes maps rocr's sentinels and statuses onto HIP codes, in order:
// the first that errors.Is matches wins. An explicit sentinel comes before
// the one its status implies: ErrNotOwner carries
// HSA_STATUS_ERROR_INVALID_AGENT, which alone would read as ErrNoAgent.
var rocrCodes = []struct {
	err  error
	code ErrorCode
}{
	{hsa.ErrNotOwner, ErrInvalidValue},
	{hsa.ErrOwnIPCHandle, ErrInvalidContext}, // hipIpcOpenMemHandle of this process's own handle
	{rocr.ErrSelfWait, ErrNotPermitted},      // CUDA's answer to API calls from a host function
	{hsa.ErrNotSupported, ErrNotSupported},
	{hsa.ErrTimeout, ErrLaunchTimeOut},
	{hsa.ErrNotInitialized, ErrNotInitialized},
	{hsa.ErrOutOfResources, ErrOutOfMemory},
	{hsa.ErrNoAgent, ErrNoDevice},
	{hsa.StatusErrorMemoryApertureViolation, ErrIllegalAddress}, // a kernel's access outside its memory
	{hsa.StatusErrorMemoryFault, ErrIllegalAddress},
	{hsa.ErrKernelFailed, ErrLaunchFailure},
	{hsa.ErrInvalidSignal, ErrInvalidHandle},
	{hsa.ErrInvalidQueue, ErrInvalidHandle},
	{hsa.ErrInvalidCodeObject, ErrInvalidImage},
	{hsa.ErrInvalidArgument, ErrInvalidValue},
	{hsa.ErrInvalidAllocation, ErrInvalidValue},
}
