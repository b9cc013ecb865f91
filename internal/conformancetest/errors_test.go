package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
)

// hip-tests catch/unit/errorHandling/hipGetErrorName.cc: Unit_hipGetErrorName_Positive_Basic
func TestGetErrorNamePositiveBasic(t *testing.T) {
	for c, name := range map[gpu.ErrorCode]string{
		gpu.Success:                  "hipSuccess",
		gpu.ErrInvalidValue:          "hipErrorInvalidValue",
		gpu.ErrOutOfMemory:           "hipErrorOutOfMemory",
		gpu.ErrInvalidConfiguration:  "hipErrorInvalidConfiguration",
		gpu.ErrInvalidDeviceFunction: "hipErrorInvalidDeviceFunction",
		gpu.ErrInvalidImage:          "hipErrorInvalidImage",
		gpu.ErrInvalidHandle:         "hipErrorInvalidHandle",
		gpu.ErrNotFound:              "hipErrorNotFound",
		gpu.ErrNotReady:              "hipErrorNotReady",
		gpu.ErrContextIsDestroyed:    "hipErrorContextIsDestroyed",
		gpu.ErrUnknown:               "hipErrorUnknown",
	} {
		assert.Equal(t, name, c.Name(), "%d", int(c))
	}
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
