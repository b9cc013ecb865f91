package gpu_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/rocr/hsa"
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
		{gpu.ErrNotPermitted, 800, "hipErrorNotPermitted"},
		{gpu.ErrNotSupported, 801, "hipErrorNotSupported"},
		{gpu.ErrPeerAccessUnsupported, 217, "hipErrorPeerAccessUnsupported"},
		{gpu.ErrPeerAccessAlreadyEnabled, 704, "hipErrorPeerAccessAlreadyEnabled"},
		{gpu.ErrPeerAccessNotEnabled, 705, "hipErrorPeerAccessNotEnabled"},
		{gpu.ErrStreamCaptureUnsupported, 900, "hipErrorStreamCaptureUnsupported"},
		{gpu.ErrStreamCaptureInvalidated, 901, "hipErrorStreamCaptureInvalidated"},
		{gpu.ErrStreamCaptureMerge, 902, "hipErrorStreamCaptureMerge"},
		{gpu.ErrStreamCaptureUnmatched, 903, "hipErrorStreamCaptureUnmatched"},
		{gpu.ErrStreamCaptureUnjoined, 904, "hipErrorStreamCaptureUnjoined"},
		{gpu.ErrStreamCaptureIsolation, 905, "hipErrorStreamCaptureIsolation"},
		{gpu.ErrStreamCaptureImplicit, 906, "hipErrorStreamCaptureImplicit"},
		{gpu.ErrCapturedEvent, 907, "hipErrorCapturedEvent"},
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

// An *Error reads "op: message (hipErrorX)"; Wrap keeps nil and an *Error
// as they are. errcodes_internal_test.go checks errors.Is for every code.
func TestErrorText(t *testing.T) {
	e := gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "%d bytes", 4)
	if e.Error() != "memcpy: 4 bytes (hipErrorInvalidValue)" {
		t.Errorf("message: %q", e)
	}
	if errs.Wrap("x", nil) != nil || gpu.CodeOf(nil) != gpu.Success {
		t.Error("Wrap or CodeOf of nil")
	}
	if errs.Wrap("outer", e) != e {
		t.Error("Wrap re-wrapped a *gpu.Error")
	}
}

// Wrap maps rocr errors onto HIP codes and keeps the HSA status and the
// rocr sentinel.
func TestWrapKeepsStatus(t *testing.T) {
	cases := []struct {
		err      error
		code     gpu.ErrorCode
		status   hsa.Status
		sentinel error
	}{
		{hsa.Errorf(hsa.StatusErrorOutOfResources, "allocate", "too big"), gpu.ErrOutOfMemory, hsa.StatusErrorOutOfResources, hsa.ErrOutOfResources},
		{hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue", "bad"), gpu.ErrInvalidValue, hsa.StatusErrorInvalidArgument, hsa.ErrInvalidArgument},
		{hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal", "gone"), gpu.ErrInvalidHandle, hsa.StatusErrorInvalidSignal, hsa.ErrInvalidSignal},
		{hsa.Errorf(hsa.StatusErrorException, "dispatch", "kernel k panicked"), gpu.ErrLaunchFailure, hsa.StatusErrorException, hsa.ErrKernelFailed},
		{hsa.Errorf(hsa.StatusErrorMemoryApertureViolation, "dispatch", "kernel k out of bounds"), gpu.ErrIllegalAddress, hsa.StatusErrorMemoryApertureViolation, hsa.ErrKernelFailed},
		{hsa.Errorf(hsa.StatusErrorNotInitialized, "agents", "no"), gpu.ErrNotInitialized, hsa.StatusErrorNotInitialized, hsa.ErrNotInitialized},
		{hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "bad elf"), gpu.ErrInvalidImage, hsa.StatusErrorInvalidCodeObject, hsa.ErrInvalidCodeObject},
		{hsa.Newf(hsa.ErrNoAgent, hsa.StatusErrorInvalidAgent, "init", "no agent"), gpu.ErrNoDevice, hsa.StatusErrorInvalidAgent, hsa.ErrNoAgent},
		{hsa.Newf(hsa.ErrNotOwner, hsa.StatusErrorInvalidAgent, "access", "owned by another"), gpu.ErrInvalidValue, hsa.StatusErrorInvalidAgent, gpu.ErrNotOwner},
		{hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidISA, "load", "ptx"), gpu.ErrNotSupported, hsa.StatusErrorInvalidISA, hsa.ErrNotSupported},
		{errors.New("plain"), gpu.ErrUnknown, hsa.StatusError, nil},
	}
	for _, c := range cases {
		err := errs.Wrap("op", c.err)
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
	err := errs.Wrap("event query", gpu.ErrNotReady)
	require.ErrorIs(t, err, gpu.ErrNotReady)
	assert.Equal(t, gpu.ErrNotReady, gpu.CodeOf(err))
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, gpu.CodeOf(gpu.ErrStreamCaptureUnsupported))
}
