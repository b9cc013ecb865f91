package gpu

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// ErrorCode is hipError_t, with HIP's numbers. It is an error itself, so
// each code is a sentinel: errors.Is(err, gpu.ErrOutOfMemory).
type ErrorCode int

// HIP error codes that hipgo returns.
const (
	Success                    ErrorCode = 0
	ErrorInvalidValue          ErrorCode = 1
	ErrorOutOfMemory           ErrorCode = 2
	ErrorNotInitialized        ErrorCode = 3
	ErrorDeinitialized         ErrorCode = 4
	ErrorInvalidConfiguration  ErrorCode = 9
	ErrorInvalidSymbol         ErrorCode = 13
	ErrorInvalidDevicePointer  ErrorCode = 17
	ErrorInvalidDeviceFunction ErrorCode = 98
	ErrorNoDevice              ErrorCode = 100
	ErrorInvalidDevice         ErrorCode = 101
	ErrorInvalidImage          ErrorCode = 200
	ErrorNoBinaryForGpu        ErrorCode = 209
	ErrorFileNotFound          ErrorCode = 301
	ErrorInvalidHandle         ErrorCode = 400
	ErrorIllegalState          ErrorCode = 401
	ErrorNotFound              ErrorCode = 500
	ErrorNotReady              ErrorCode = 600
	ErrorIllegalAddress        ErrorCode = 700
	ErrorLaunchOutOfResources  ErrorCode = 701
	ErrorLaunchTimeOut         ErrorCode = 702
	ErrorContextIsDestroyed    ErrorCode = 709
	ErrorLaunchFailure         ErrorCode = 719
	ErrorNotPermitted          ErrorCode = 800
	ErrorNotSupported          ErrorCode = 801
	ErrorUnknown               ErrorCode = 999
)

var codeNames = map[ErrorCode]string{
	Success:                    "hipSuccess",
	ErrorInvalidValue:          "hipErrorInvalidValue",
	ErrorOutOfMemory:           "hipErrorOutOfMemory",
	ErrorNotInitialized:        "hipErrorNotInitialized",
	ErrorDeinitialized:         "hipErrorDeinitialized",
	ErrorInvalidConfiguration:  "hipErrorInvalidConfiguration",
	ErrorInvalidSymbol:         "hipErrorInvalidSymbol",
	ErrorInvalidDevicePointer:  "hipErrorInvalidDevicePointer",
	ErrorInvalidDeviceFunction: "hipErrorInvalidDeviceFunction",
	ErrorNoDevice:              "hipErrorNoDevice",
	ErrorInvalidDevice:         "hipErrorInvalidDevice",
	ErrorInvalidImage:          "hipErrorInvalidImage",
	ErrorNoBinaryForGpu:        "hipErrorNoBinaryForGpu",
	ErrorFileNotFound:          "hipErrorFileNotFound",
	ErrorInvalidHandle:         "hipErrorInvalidHandle",
	ErrorIllegalState:          "hipErrorIllegalState",
	ErrorNotFound:              "hipErrorNotFound",
	ErrorNotReady:              "hipErrorNotReady",
	ErrorIllegalAddress:        "hipErrorIllegalAddress",
	ErrorLaunchOutOfResources:  "hipErrorLaunchOutOfResources",
	ErrorLaunchTimeOut:         "hipErrorLaunchTimeOut",
	ErrorContextIsDestroyed:    "hipErrorContextIsDestroyed",
	ErrorLaunchFailure:         "hipErrorLaunchFailure",
	ErrorNotPermitted:          "hipErrorNotPermitted",
	ErrorNotSupported:          "hipErrorNotSupported",
	ErrorUnknown:               "hipErrorUnknown",
}

// ErrorCooperativeLaunchTooLarge: a cooperative launch's grid exceeds what
// the device holds at once (module.LaunchCooperative).
const ErrorCooperativeLaunchTooLarge ErrorCode = 720

// ErrCooperativeLaunchTooLarge is its sentinel.
var ErrCooperativeLaunchTooLarge error = ErrorCooperativeLaunchTooLarge

func init() { codeNames[ErrorCooperativeLaunchTooLarge] = "hipErrorCooperativeLaunchTooLarge" }

// Name is HIP's name for the code (hipGetErrorName): "hipErrorUnknown"
// for a code HIP does not name, as hipGetErrorName answers.
func (c ErrorCode) Name() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return codeNames[ErrorUnknown]
}

// Error is the code's name; a code HIP does not name keeps its number:
// "hipErrorUnknown (-1)".
func (c ErrorCode) Error() string {
	if _, ok := codeNames[c]; ok {
		return c.Name()
	}
	return fmt.Sprintf("%s (%d)", codeNames[ErrorUnknown], int(c))
}

// Sentinels, for errors.Is. ErrNotOwner is rocr's: using coarse-grained
// memory on an agent that does not own it.
var (
	ErrInvalidValue          error = ErrorInvalidValue
	ErrOutOfMemory           error = ErrorOutOfMemory
	ErrNotInitialized        error = ErrorNotInitialized
	ErrInvalidConfiguration  error = ErrorInvalidConfiguration
	ErrInvalidDeviceFunction error = ErrorInvalidDeviceFunction
	ErrNoDevice              error = ErrorNoDevice
	ErrInvalidDevice         error = ErrorInvalidDevice
	ErrInvalidImage          error = ErrorInvalidImage
	ErrNoBinaryForGpu        error = ErrorNoBinaryForGpu
	ErrInvalidHandle         error = ErrorInvalidHandle
	ErrNotFound              error = ErrorNotFound
	ErrNotReady              error = ErrorNotReady
	ErrIllegalAddress        error = ErrorIllegalAddress
	ErrLaunchFailure         error = ErrorLaunchFailure
	ErrLaunchTimeOut         error = ErrorLaunchTimeOut
	ErrNotSupported          error = ErrorNotSupported
	ErrNotPermitted          error = ErrorNotPermitted
	ErrContextIsDestroyed    error = ErrorContextIsDestroyed
	ErrNotOwner                    = rocr.ErrNotOwner
)

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
func (e *Error) Status() rocr.Status { return rocr.StatusOf(e.Err) }

// Errorf returns an *Error with code c.
func Errorf(c ErrorCode, op, format string, args ...any) error {
	return &Error{Code: c, Op: op, Msg: fmt.Sprintf(format, args...)}
}

// Wrap turns a rocr error into an *Error with the HIP code that fits it,
// keeping it as the cause. A nil err gives nil; an *Error is returned as is.
// A typed-nil err (a nil pointer in a non-nil error, whose methods may
// panic) is an ErrorLaunchFailure that names its type.
func Wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if hsa.IsNilValue(err) {
		return &Error{Code: ErrorLaunchFailure, Op: op, Msg: fmt.Sprintf("a nil %T was returned as an error", err)}
	}
	var ge *Error
	if errors.As(err, &ge) {
		return err
	}
	return &Error{Code: CodeOf(err), Op: op, Err: err}
}

// CodeOf picks the HIP code for an error. A bare ErrorCode, such as the
// gpu.ErrNotReady that queries return, is its own code.
func CodeOf(err error) ErrorCode {
	var ge *Error
	var code ErrorCode
	switch {
	case err == nil:
		return Success
	case hsa.IsNilValue(err):
		return ErrorLaunchFailure
	case errors.As(err, &ge):
		return ge.Code
	case errors.As(err, &code):
		return code
	// An explicit sentinel comes before the one its status implies:
	// ErrNotOwner carries HSA_STATUS_ERROR_INVALID_AGENT, which alone
	// would read as ErrNoAgent.
	case errors.Is(err, rocr.ErrNotOwner):
		return ErrorInvalidValue
	case errors.Is(err, rocr.ErrSelfWait):
		return ErrorNotPermitted // CUDA's answer to API calls from a host function
	case errors.Is(err, rocr.ErrNotSupported):
		return ErrorNotSupported
	case errors.Is(err, rocr.ErrTimeout):
		return ErrorLaunchTimeOut
	case errors.Is(err, rocr.ErrNotInitialized):
		return ErrorNotInitialized
	case errors.Is(err, rocr.ErrOutOfResources):
		return ErrorOutOfMemory
	case errors.Is(err, rocr.ErrNoAgent):
		return ErrorNoDevice
	case errors.Is(err, rocr.StatusErrorMemoryApertureViolation), errors.Is(err, rocr.StatusErrorMemoryFault):
		return ErrorIllegalAddress // a kernel's access outside its memory
	case errors.Is(err, rocr.ErrKernelFailed):
		return ErrorLaunchFailure
	case errors.Is(err, rocr.ErrInvalidSignal), errors.Is(err, rocr.ErrInvalidQueue):
		return ErrorInvalidHandle
	case errors.Is(err, rocr.ErrInvalidCodeObject):
		return ErrorInvalidImage
	case errors.Is(err, rocr.ErrInvalidArgument), errors.Is(err, rocr.ErrInvalidAllocation):
		return ErrorInvalidValue
	}
	switch rocr.StatusOf(err) {
	case rocr.StatusErrorException, rocr.StatusErrorInvalidPacketFormat:
		return ErrorLaunchFailure
	}
	return ErrorUnknown
}
