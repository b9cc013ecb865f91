package gpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
)

// The codes and names are hipError_t's (hip/hip_runtime_api.h).
func TestErrorCodesMatchHIP(t *testing.T) {
	cases := []struct {
		code gpu.ErrorCode
		num  int
		name string
	}{
		{gpu.Success, 0, "hipSuccess"},
		{gpu.ErrInvalidValue, 1, "hipErrorInvalidValue"},
		{gpu.ErrOutOfMemory, 2, "hipErrorOutOfMemory"},
		{gpu.ErrNotInitialized, 3, "hipErrorNotInitialized"},
		{gpu.ErrDeinitialized, 4, "hipErrorDeinitialized"},
		{gpu.ErrInvalidConfiguration, 9, "hipErrorInvalidConfiguration"},
		{gpu.ErrInvalidSymbol, 13, "hipErrorInvalidSymbol"},
		{gpu.ErrInvalidDevicePointer, 17, "hipErrorInvalidDevicePointer"},
		{gpu.ErrInvalidDeviceFunction, 98, "hipErrorInvalidDeviceFunction"},
		{gpu.ErrNoDevice, 100, "hipErrorNoDevice"},
		{gpu.ErrInvalidDevice, 101, "hipErrorInvalidDevice"},
		{gpu.ErrInvalidImage, 200, "hipErrorInvalidImage"},
		{gpu.ErrNoBinaryForGpu, 209, "hipErrorNoBinaryForGpu"},
		{gpu.ErrFileNotFound, 301, "hipErrorFileNotFound"},
		{gpu.ErrInvalidHandle, 400, "hipErrorInvalidHandle"},
		{gpu.ErrIllegalState, 401, "hipErrorIllegalState"},
		{gpu.ErrNotFound, 500, "hipErrorNotFound"},
		{gpu.ErrNotReady, 600, "hipErrorNotReady"},
		{gpu.ErrIllegalAddress, 700, "hipErrorIllegalAddress"},
		{gpu.ErrLaunchOutOfResources, 701, "hipErrorLaunchOutOfResources"},
		{gpu.ErrLaunchTimeOut, 702, "hipErrorLaunchTimeOut"},
		{gpu.ErrContextIsDestroyed, 709, "hipErrorContextIsDestroyed"},
		{gpu.ErrLaunchFailure, 719, "hipErrorLaunchFailure"},
		{gpu.ErrCooperativeLaunchTooLarge, 720, "hipErrorCooperativeLaunchTooLarge"},
		{gpu.ErrNotSupported, 801, "hipErrorNotSupported"},
		{gpu.ErrUnknown, 999, "hipErrorUnknown"},
	}
	for _, c := range cases {
		if int(c.code) != c.num || c.code.Name() != c.name || c.code.Error() != c.name {
			t.Errorf("%d %s: got %d %s", c.num, c.name, int(c.code), c.code.Name())
		}
	}
	// hipGetErrorName names a code it does not know hipErrorUnknown; the
	// error text keeps the number.
	for _, c := range []gpu.ErrorCode{-1, 12345} {
		if got := c.Name(); got != "hipErrorUnknown" {
			t.Errorf("unknown code %d: Name %s", int(c), got)
		}
		if got, want := c.Error(), fmt.Sprintf("hipErrorUnknown (%d)", int(c)); got != want {
			t.Errorf("unknown code %d: Error %s, want %s", int(c), got, want)
		}
	}
}

func TestSentinels(t *testing.T) {
	sentinels := map[error]gpu.ErrorCode{
		gpu.ErrInvalidValue:          gpu.ErrInvalidValue,
		gpu.ErrOutOfMemory:           gpu.ErrOutOfMemory,
		gpu.ErrNotInitialized:        gpu.ErrNotInitialized,
		gpu.ErrInvalidConfiguration:  gpu.ErrInvalidConfiguration,
		gpu.ErrInvalidDeviceFunction: gpu.ErrInvalidDeviceFunction,
		gpu.ErrNoDevice:              gpu.ErrNoDevice,
		gpu.ErrInvalidDevice:         gpu.ErrInvalidDevice,
		gpu.ErrInvalidImage:          gpu.ErrInvalidImage,
		gpu.ErrNoBinaryForGpu:        gpu.ErrNoBinaryForGpu,
		gpu.ErrInvalidHandle:         gpu.ErrInvalidHandle,
		gpu.ErrNotFound:              gpu.ErrNotFound,
		gpu.ErrNotReady:              gpu.ErrNotReady,
		gpu.ErrIllegalAddress:        gpu.ErrIllegalAddress,
		gpu.ErrLaunchFailure:         gpu.ErrLaunchFailure,
		gpu.ErrLaunchTimeOut:         gpu.ErrLaunchTimeOut,
		gpu.ErrNotSupported:          gpu.ErrNotSupported,
		gpu.ErrContextIsDestroyed:    gpu.ErrContextIsDestroyed,
	}
	for sentinel, code := range sentinels {
		err := fmt.Errorf("outer: %w", gpu.Errorf(code, "op", "what"))
		if !errors.Is(err, sentinel) {
			t.Errorf("%s does not match its sentinel", code.Name())
		}
		if code != gpu.ErrInvalidValue && errors.Is(err, gpu.ErrInvalidValue) {
			t.Errorf("%s matches ErrInvalidValue", code.Name())
		}
		if gpu.CodeOf(err) != code {
			t.Errorf("CodeOf(%v) = %v", err, gpu.CodeOf(err))
		}
	}
	e := gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "%d bytes", 4)
	if e.Error() != "memcpy: 4 bytes (hipErrorInvalidValue)" {
		t.Errorf("message: %q", e)
	}
	if gpu.Wrap("x", nil) != nil || gpu.CodeOf(nil) != gpu.Success {
		t.Error("Wrap or CodeOf of nil")
	}
	if gpu.Wrap("outer", e) != e {
		t.Error("Wrap re-wrapped a *gpu.Error")
	}
}

// Wrap maps rocr errors onto HIP codes and keeps the HSA status and the
// rocr sentinel.
func TestWrapKeepsStatus(t *testing.T) {
	cases := []struct {
		err      error
		code     gpu.ErrorCode
		status   rocr.Status
		sentinel error
	}{
		{rocr.Errorf(rocr.StatusErrorOutOfResources, "allocate", "too big"), gpu.ErrOutOfMemory, rocr.StatusErrorOutOfResources, rocr.ErrOutOfResources},
		{rocr.Errorf(rocr.StatusErrorInvalidArgument, "queue", "bad"), gpu.ErrInvalidValue, rocr.StatusErrorInvalidArgument, rocr.ErrInvalidArgument},
		{rocr.Errorf(rocr.StatusErrorInvalidSignal, "signal", "gone"), gpu.ErrInvalidHandle, rocr.StatusErrorInvalidSignal, rocr.ErrInvalidSignal},
		{rocr.Errorf(rocr.StatusErrorException, "dispatch", "kernel k panicked"), gpu.ErrLaunchFailure, rocr.StatusErrorException, rocr.ErrKernelFailed},
		{rocr.Errorf(rocr.StatusErrorMemoryApertureViolation, "dispatch", "kernel k out of bounds"), gpu.ErrIllegalAddress, rocr.StatusErrorMemoryApertureViolation, rocr.ErrKernelFailed},
		{rocr.Errorf(rocr.StatusErrorNotInitialized, "agents", "no"), gpu.ErrNotInitialized, rocr.StatusErrorNotInitialized, rocr.ErrNotInitialized},
		{rocr.Errorf(rocr.StatusErrorInvalidCodeObject, "load", "bad elf"), gpu.ErrInvalidImage, rocr.StatusErrorInvalidCodeObject, rocr.ErrInvalidCodeObject},
		{rocr.Newf(rocr.ErrNoAgent, rocr.StatusErrorInvalidAgent, "init", "no agent"), gpu.ErrNoDevice, rocr.StatusErrorInvalidAgent, rocr.ErrNoAgent},
		{rocr.Newf(rocr.ErrNotOwner, rocr.StatusErrorInvalidAgent, "access", "owned by another"), gpu.ErrInvalidValue, rocr.StatusErrorInvalidAgent, gpu.ErrNotOwner},
		{rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorInvalidISA, "load", "ptx"), gpu.ErrNotSupported, rocr.StatusErrorInvalidISA, rocr.ErrNotSupported},
		{errors.New("plain"), gpu.ErrUnknown, rocr.StatusError, nil},
	}
	for _, c := range cases {
		err := gpu.Wrap("op", c.err)
		var ge *gpu.Error
		if !errors.As(err, &ge) {
			t.Fatalf("%v: not a *gpu.Error", err)
		}
		if ge.Code != c.code || ge.Status() != c.status || !errors.Is(err, c.code) || !errors.Is(err, c.err) {
			t.Errorf("%v: code %v status %v", err, ge.Code, ge.Status())
		}
		if c.sentinel != nil && !errors.Is(err, c.sentinel) {
			t.Errorf("%v: lost sentinel %v", err, c.sentinel)
		}
		if !strings.HasPrefix(err.Error(), "op: ") || !strings.HasSuffix(err.Error(), "("+c.code.Name()+")") {
			t.Errorf("message %q", err)
		}
	}
}

// Queries return bare codes (gpu.ErrNotReady): CodeOf and Wrap keep them.
func TestCodeOfBareCode(t *testing.T) {
	assert.Equal(t, gpu.ErrNotReady, gpu.CodeOf(gpu.ErrNotReady))
	assert.Equal(t, gpu.ErrNotReady, gpu.CodeOf(fmt.Errorf("wait: %w", gpu.ErrNotReady)))
	err := gpu.Wrap("event query", gpu.ErrNotReady)
	require.ErrorIs(t, err, gpu.ErrNotReady)
	assert.Equal(t, gpu.ErrNotReady, gpu.CodeOf(err))
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, gpu.CodeOf(gpu.ErrStreamCaptureUnsupported))
}
