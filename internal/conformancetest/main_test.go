package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Two cpu agents, for the cases of events and streams of two devices.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.DefaultEnv("HIPGO_DRIVER", "cpu"), testenv.Setenv("HIPGO_CPU_AGENTS", "2"))
}

// The suite's kernels, hip-tests' NOPKernel and a fill kernel, are Go
// kernels (kernels.go): the same cases run on the cpu agent and on GPUs.
var kernelSet = goKernels.Code()

// device is the device under test, released when t ends.
func device(t *testing.T) *gpu.Device { return gputest.Device(t) }

// twoDevices is two devices of the driver under test.
func twoDevices(t *testing.T) (*gpu.Device, *gpu.Device) {
	d := device(t)
	ds := gputest.Devices(t, d.Properties().Driver, 2)
	return ds[0], ds[1]
}

func newStream(t *testing.T, dev *gpu.Device) *stream.Stream {
	t.Helper()
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return s
}

func newEvent(t *testing.T, dev *gpu.Device, flags stream.EventFlags) *stream.Event {
	t.Helper()
	ev, err := stream.NewEvent(dev, flags)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ev.Destroy() })
	return ev
}

func newBuffer[T any](t *testing.T, dev *gpu.Device, n int) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.New[T](dev, n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

// functions loads the suite's kernels on dev.
func functions(t *testing.T, dev *gpu.Device) (m *module.Module, nop, fill *module.Function) {
	t.Helper()
	m, err := module.Load(dev, kernelSet)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	return m, m.MustFunction("conformance_nop"), m.MustFunction("conformance_fill")
}

// code is the HIP code of err, for assertions that name it.
func code(err error) gpu.ErrorCode { return gpu.CodeOf(err) }
