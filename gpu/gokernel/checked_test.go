package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// devices is the cpu agent and every GPU, each through a view of t's own.
func devices(t *testing.T) []*gpu.Device {
	all, err := gpu.Devices()
	require.NoError(t, err)
	var out []*gpu.Device
	for _, d := range all {
		out = append(out, gputest.DeviceOf(t, d.Properties().Driver))
	}
	return out
}

// An index out of range fails the launch on every agent, naming the
// kernel's Go line, the index and the length; the memory past the buffer
// is never written.
func TestCheckedIndexOutOfRange(t *testing.T) {
	require.True(t, faulty.Library.Checked(), "checked mode is the default under go test")
	for _, dev := range devices(t) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.New[float32](dev, 100)
		require.NoError(t, err)
		guard, err := buffer.New[float32](dev, 1000)
		require.NoError(t, err)
		require.NoError(t, guard.Fill(7))
		require.NoError(t, faulty.LaunchFill(s, gpu.D1(4), gpu.D1(64), 0, x, 1, 256))
		err = s.Synchronize()
		require.Error(t, err, "on %s", dev)
		assert.Contains(t, err.Error(), "index out of range", "on %s", dev)
		if dev.Properties().Driver != "cpu" {
			assert.Contains(t, err.Error(), "faulty.go:15", "on %s", dev)
			assert.Contains(t, err.Error(), "with length 100", "on %s", dev)
			assert.Contains(t, err.Error(), "fill", "on %s", dev)
		}
		g, gerr := guard.ToSlice()
		require.NoError(t, gerr)
		for i, v := range g {
			if v != 7 {
				t.Fatalf("on %s: guard[%d] = %v: a checked kernel wrote past its buffer", dev, i, v)
			}
		}
		_ = s.Destroy()
		_ = x.Free()
		_ = guard.Free()
	}
}

// Integer division by zero fails the launch, as it panics in Go.
func TestCheckedDivideByZero(t *testing.T) {
	for _, dev := range devices(t) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.New[int32](dev, 64)
		require.NoError(t, err)
		require.NoError(t, faulty.LaunchDivide(s, gpu.D1(1), gpu.D1(64), 0, x, 0))
		err = s.Synchronize()
		require.Error(t, err, "on %s", dev)
		assert.Contains(t, err.Error(), "divide by zero", "on %s", dev)
		_ = s.Destroy()
		_ = x.Free()
	}
}

// Unchecked, a launch within bounds runs as checked does.
func TestUncheckedRuns(t *testing.T) {
	faulty.Library.SetChecked(false)
	defer faulty.Library.SetChecked(true)
	for _, dev := range devices(t) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.New[float32](dev, 256)
		require.NoError(t, err)
		require.NoError(t, faulty.LaunchFill(s, gpu.D1(4), gpu.D1(64), 0, x, 3, 256))
		require.NoError(t, s.Synchronize())
		got, err := x.ToSlice()
		require.NoError(t, err)
		for _, v := range got {
			require.Equal(t, float32(3), v, "on %s", dev)
		}
		_ = s.Destroy()
		_ = x.Free()
	}
}
