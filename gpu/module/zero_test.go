package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// A Module or Function that Load or Module.Function did not make (a zero
// value) holds no code: its accessors answer zero values and its
// operations an error; none panics. A zero Stream is refused by a launch.
func TestZeroValues(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	real, err := module.Load(dev, set)
	require.NoError(t, err)
	defer real.Unload()
	rf, err := real.Function("test_scale")
	require.NoError(t, err)
	x, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	defer x.Free()

	m := &module.Module{}
	f := &module.Function{}
	a := &module.Args{}
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	values := map[string]struct{ got, want any }{}
	assert.NotPanics(t, func() {
		values["Module.Device"] = struct{ got, want any }{m.Device(), (*gpu.Device)(nil)}
		values["Module.Target"] = struct{ got, want any }{m.Target(), ""}
		values["Module.Kind"] = struct{ got, want any }{m.Kind(), hsa.CodeNone}
		values["Module.Kernels"] = struct{ got, want any }{m.Kernels(), []string(nil)}
		values["Function.Name"] = struct{ got, want any }{f.Name(), ""}
		values["Function.Module"] = struct{ got, want any }{f.Module(), (*module.Module)(nil)}
		values["Function.Attrs"] = struct{ got, want any }{f.Attributes(), module.Attributes{}}
		values["Function.Sig"] = struct{ got, want any }{f.Signature(), "()"}
	})
	for name, v := range values {
		assert.Equal(t, v.want, v.got, name)
	}

	ops := map[string]struct {
		f    func() error
		code gpu.ErrorCode
		msg  string
	}{
		"Module.Function":                {func() error { _, err := m.Function("test_scale"); return err }, gpu.ErrInvalidHandle, "zero Module"},
		"Module.Unload":                  {m.Unload, gpu.ErrInvalidHandle, "zero Module"},
		"Function.Launch":                {func() error { return f.Launch(s, one, one, 0, x, float32(1), int32(1)) }, gpu.ErrInvalidHandle, "zero Function"},
		"Function.LaunchArgs":            {func() error { return f.LaunchArgs(s, one, one, 0, a) }, gpu.ErrInvalidHandle, "zero Function"},
		"Function.LaunchCooperative":     {func() error { return f.LaunchCooperative(s, one, one, 0) }, gpu.ErrInvalidHandle, "zero Function"},
		"Function.LaunchCooperativeArgs": {func() error { return f.LaunchCooperativeArgs(s, one, one, 0, a) }, gpu.ErrInvalidHandle, "zero Function"},
		"Function.Launch(nil stream)":    {func() error { return f.Launch(nil, one, one, 0) }, gpu.ErrInvalidHandle, "zero Function"},
		"LaunchKernelGGL":                {func() error { return module.LaunchKernelGGL(f, one, one, 0, s, x, float32(1), int32(1)) }, gpu.ErrInvalidDeviceFunction, "zero Function"},
		"MaxCooperativeBlocks":           {func() error { _, err := module.MaxCooperativeBlocks(f, 1, 0); return err }, gpu.ErrInvalidDeviceFunction, "zero Function"},
		"OccupancyMaxPotentialBlockSize": {func() error { _, _, err := module.OccupancyMaxPotentialBlockSize(f, 0, 0); return err }, gpu.ErrInvalidDeviceFunction, "zero Function"},
		"OccupancyMaxActiveBlocks": {func() error {
			_, err := module.OccupancyMaxActiveBlocksPerMultiprocessor(f, 1, 0)
			return err
		}, gpu.ErrInvalidDeviceFunction, "zero Function"},
		"graph kernel node": {func() error {
			g := graph.New()
			defer g.Destroy()
			_, err := g.AddKernel(graph.Kernel{Func: f, Grid: one, Block: one, Args: []any{x, float32(1), int32(1)}})
			if err != nil {
				return err
			}
			e, err := g.Instantiate(dev)
			if err == nil {
				e.Destroy()
			}
			return err
		}, gpu.ErrInvalidDeviceFunction, "zero Function"},
		"launch on a zero Stream": {func() error { return rf.Launch(&stream.Stream{}, one, one, 0, x, float32(1), int32(1)) }, gpu.ErrInvalidHandle, "zero Stream"},
	}
	for name, c := range ops {
		var err error
		if assert.NotPanics(t, func() { err = c.f() }, name) {
			assert.ErrorIs(t, err, c.code, name)
			assert.ErrorContains(t, err, c.msg, name)
		}
	}
}
