package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
)

// hipErrors is hipError_t as hip_runtime_api.h defines it: every code and
// its name (hipErrorMemoryAllocation, hipErrorInitializationError and
// hipErrorInvalidResourceHandle are second names of 2, 3 and 400).
var hipErrors = []struct {
	code int
	name string
}{
	{0, "hipSuccess"},
	{1, "hipErrorInvalidValue"},
	{2, "hipErrorOutOfMemory"},
	{3, "hipErrorNotInitialized"},
	{4, "hipErrorDeinitialized"},
	{5, "hipErrorProfilerDisabled"},
	{6, "hipErrorProfilerNotInitialized"},
	{7, "hipErrorProfilerAlreadyStarted"},
	{8, "hipErrorProfilerAlreadyStopped"},
	{9, "hipErrorInvalidConfiguration"},
	{12, "hipErrorInvalidPitchValue"},
	{13, "hipErrorInvalidSymbol"},
	{17, "hipErrorInvalidDevicePointer"},
	{21, "hipErrorInvalidMemcpyDirection"},
	{35, "hipErrorInsufficientDriver"},
	{52, "hipErrorMissingConfiguration"},
	{53, "hipErrorPriorLaunchFailure"},
	{98, "hipErrorInvalidDeviceFunction"},
	{100, "hipErrorNoDevice"},
	{101, "hipErrorInvalidDevice"},
	{200, "hipErrorInvalidImage"},
	{201, "hipErrorInvalidContext"},
	{202, "hipErrorContextAlreadyCurrent"},
	{205, "hipErrorMapFailed"},
	{206, "hipErrorUnmapFailed"},
	{207, "hipErrorArrayIsMapped"},
	{208, "hipErrorAlreadyMapped"},
	{209, "hipErrorNoBinaryForGpu"},
	{210, "hipErrorAlreadyAcquired"},
	{211, "hipErrorNotMapped"},
	{212, "hipErrorNotMappedAsArray"},
	{213, "hipErrorNotMappedAsPointer"},
	{214, "hipErrorECCNotCorrectable"},
	{215, "hipErrorUnsupportedLimit"},
	{216, "hipErrorContextAlreadyInUse"},
	{217, "hipErrorPeerAccessUnsupported"},
	{218, "hipErrorInvalidKernelFile"},
	{219, "hipErrorInvalidGraphicsContext"},
	{300, "hipErrorInvalidSource"},
	{301, "hipErrorFileNotFound"},
	{302, "hipErrorSharedObjectSymbolNotFound"},
	{303, "hipErrorSharedObjectInitFailed"},
	{304, "hipErrorOperatingSystem"},
	{400, "hipErrorInvalidHandle"},
	{401, "hipErrorIllegalState"},
	{500, "hipErrorNotFound"},
	{600, "hipErrorNotReady"},
	{700, "hipErrorIllegalAddress"},
	{701, "hipErrorLaunchOutOfResources"},
	{702, "hipErrorLaunchTimeOut"},
	{704, "hipErrorPeerAccessAlreadyEnabled"},
	{705, "hipErrorPeerAccessNotEnabled"},
	{708, "hipErrorSetOnActiveProcess"},
	{709, "hipErrorContextIsDestroyed"},
	{710, "hipErrorAssert"},
	{712, "hipErrorHostMemoryAlreadyRegistered"},
	{713, "hipErrorHostMemoryNotRegistered"},
	{719, "hipErrorLaunchFailure"},
	{720, "hipErrorCooperativeLaunchTooLarge"},
	{800, "hipErrorNotPermitted"},
	{801, "hipErrorNotSupported"},
	{900, "hipErrorStreamCaptureUnsupported"},
	{901, "hipErrorStreamCaptureInvalidated"},
	{902, "hipErrorStreamCaptureMerge"},
	{903, "hipErrorStreamCaptureUnmatched"},
	{904, "hipErrorStreamCaptureUnjoined"},
	{905, "hipErrorStreamCaptureIsolation"},
	{906, "hipErrorStreamCaptureImplicit"},
	{907, "hipErrorCapturedEvent"},
	{908, "hipErrorStreamCaptureWrongThread"},
	{910, "hipErrorGraphExecUpdateFailure"},
	{911, "hipErrorInvalidChannelDescriptor"},
	{912, "hipErrorInvalidTexture"},
	{999, "hipErrorUnknown"},
	{1052, "hipErrorRuntimeMemory"},
	{1053, "hipErrorRuntimeOther"},
	{1054, "hipErrorTbd"},
}

// hip-tests catch/unit/errorHandling/hipGetErrorName.cc: Unit_hipGetErrorName_Positive_Basic
// (every code hipError_t defines)
func TestGetErrorNamePositiveBasic(t *testing.T) {
	for _, e := range hipErrors {
		t.Run(e.name, func(t *testing.T) {
			assert.Equal(t, e.name, gpu.ErrorCode(e.code).Name())
			assert.Equal(t, e.name, gpu.ErrorCode(e.code).Error())
		})
	}
}

// hip-tests catch/unit/errorHandling/hipGetErrorString.cc: Unit_hipGetErrorString_Positive_Basic
// (every code has its own description; none says "unknown error" but
// hipErrorUnknown's)
func TestGetErrorStringEveryCode(t *testing.T) {
	unknown := gpu.ErrUnknown.Description()
	for _, e := range hipErrors {
		t.Run(e.name, func(t *testing.T) {
			d := gpu.ErrorCode(e.code).Description()
			assert.NotEmpty(t, d)
			if e.code != int(gpu.ErrUnknown) {
				assert.NotEqual(t, unknown, d, "%s has no description of its own", e.name)
			}
		})
	}
	assert.Equal(t, "invalid argument", gpu.ErrInvalidValue.Description())
	assert.Equal(t, "no error", gpu.Success.Description())
	assert.Equal(t, unknown, gpu.ErrorCode(-1).Description())
}

// hip-tests catch/unit/errorHandling/hipGetErrorName.cc: Unit_hipGetErrorName_Negative_Parameters
func TestGetErrorNameNegativeParameters(t *testing.T) {
	assert.Equal(t, "hipErrorUnknown", gpu.ErrorCode(-1).Name())
	assert.Equal(t, "hipErrorUnknown (-1)", gpu.ErrorCode(-1).Error())
}

// hip-tests catch/unit/errorHandling/hipGetErrorString.cc: Unit_hipGetErrorString_Positive_Basic
// hipGetErrorString's text is an *Error's message, which ends with the
// code's name.
func TestGetErrorStringPositiveBasic(t *testing.T) {
	err := gpu.Errorf(gpu.ErrInvalidValue, "memcpy", "bad size")
	assert.Equal(t, "memcpy: bad size (hipErrorInvalidValue)", err.Error())
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Equal(t, gpu.ErrInvalidValue, code(err))
}

// hip-tests catch/unit/errorHandling/hipGetErrorString.cc: Unit_hipGetErrorString_Negative_Parameters
func TestGetErrorStringNegativeParameters(t *testing.T) {
	err := gpu.Errorf(gpu.ErrorCode(-1), "op", "x")
	assert.Equal(t, "op: x (hipErrorUnknown (-1))", err.Error())
}

// hip-tests catch/unit/errorHandling/hipGetLastError.cc and hipPeekAtLastError.cc:
// no equivalent. hipgo returns every error from the call that made it,
// so there is no last error to get, peek at or reset (README's HIP table).
