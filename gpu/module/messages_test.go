package module_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr/hsa"
)

type Celsius float32

type Count int32

// Named scalars pass by their underlying type; messages name the Go type
// the caller passed; a pinned host buffer is a buffer.
func TestArgumentTypesAndMessages(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	dev := setup(t)
	devs, err := gpu.Devices()
	require.NoError(t, err)
	require.Len(t, devs, 2)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)

	h, err := buffer.NewHost[float32](dev, 4)
	require.NoError(t, err)
	copy(h.Slice(), []float32{1, 2, 3, 4})
	require.NoError(t, f.Launch(nil, gpu.D1(1), gpu.D1(4), 0, h, Celsius(2), Count(4)))
	var a module.Args
	require.NoError(t, f.LaunchArgs(nil, gpu.D1(1), gpu.D1(4), 0, a.Ptr(h).Value(Celsius(10)).Value(Count(4))))
	require.NoError(t, dev.Synchronize())
	assert.Equal(t, []float32{20, 40, 60, 80}, h.Slice())

	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, h, float32(1), 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.EqualError(t, err, "launch: kernel test_scale argument 2 (N, int32): got int (8 bytes), the kernel takes 4 bytes (hipErrorInvalidValue)")
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, h, Celsius(1), uint32(4))
	assert.EqualError(t, err, "launch: kernel test_scale argument 2 (N, int32): got uint32 (hipErrorInvalidValue)")
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, h, 1.0, int32(4))
	assert.EqualError(t, err, "launch: kernel test_scale argument 1 (Alpha, float32): got float64 (8 bytes), the kernel takes 4 bytes (hipErrorInvalidValue)")
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, Count(1), float32(1), int32(4))
	assert.EqualError(t, err, "launch: kernel test_scale argument 0 (X, float32*): got module_test.Count where the kernel takes a buffer (hipErrorInvalidValue)")
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, h, "two", int32(4))
	assert.EqualError(t, err, "launch: kernel test_scale argument 1 (Alpha, float32): unsupported argument type string: pass a buffer, a number, or a struct or array of numbers (hipErrorInvalidValue)")

	// Another device's buffer: each device named once, one code.
	other, err := buffer.New[float32](devs[1], 4)
	require.NoError(t, err)
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, other, float32(1), int32(4))
	assert.ErrorIs(t, err, gpu.ErrNotOwner)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.EqualError(t, err, "launch: kernel test_scale argument 0 (X, float32*): "+other.String()+" is on device 1, not on device 0: transfer it, copy it, or enable peer access (hipErrorInvalidValue)")
	var ge *gpu.Error
	require.True(t, errors.As(err, &ge))
	assert.Equal(t, hsa.StatusErrorInvalidAgent, ge.Status())
	require.NoError(t, other.Free())

	// A freed buffer: its code once.
	freed, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	name := freed.String()
	require.NoError(t, freed.Free())
	err = f.Launch(nil, gpu.D1(1), gpu.D1(1), 0, freed, float32(1), int32(4))
	assert.EqualError(t, err, "launch: kernel test_scale argument 0 (X, float32*): "+name+" was freed (hipErrorInvalidValue)")
	assert.Equal(t, 1, strings.Count(err.Error(), "hipErrorInvalidValue"))
	require.NoError(t, h.Free())
}
