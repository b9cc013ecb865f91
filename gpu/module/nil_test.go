package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Every exported method of a nil Module, Function or Args answers a zero
// value or an error; none panics.
func TestNilReceivers(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()

	var (
		m *module.Module
		f *module.Function
		a *module.Args
	)
	values := map[string]struct{ got, want func() any }{
		"Module.Device":     {func() any { return m.Device() }, func() any { return (*gpu.Device)(nil) }},
		"Module.Target":     {func() any { return m.Target() }, func() any { return "" }},
		"Module.Kind":       {func() any { return m.Kind() }, func() any { return hsa.CodeNone }},
		"Module.Kernels":    {func() any { return m.Kernels() }, func() any { return []string(nil) }},
		"Function.Name":     {func() any { return f.Name() }, func() any { return "" }},
		"Function.Module":   {func() any { return f.Module() }, func() any { return (*module.Module)(nil) }},
		"Function.Attrs":    {func() any { return f.Attributes() }, func() any { return module.Attributes{} }},
		"Function.Sig":      {func() any { return f.Signature() }, func() any { return "" }},
		"Args.Len":          {func() any { return a.Len() }, func() any { return 0 }},
		"Args.Reset":        {func() any { a.Reset(); return nil }, func() any { return nil }},
		"Args.Int32":        {func() any { return a.Int32(1).Float32(2).Ptr(nil) }, func() any { return (*module.Args)(nil) }},
		"Args.Value":        {func() any { return a.Value(struct{ X int32 }{1}) }, func() any { return (*module.Args)(nil) }},
		"module.ArgStruct":  {func() any { return module.ArgStruct(a, struct{ X int32 }{1}) }, func() any { return (*module.Args)(nil) }},
		"Module.Function":   {func() any { _, err := m.Function("k"); return gpu.CodeOf(err) }, func() any { return gpu.ErrInvalidHandle }},
		"Module.Unload":     {func() any { return gpu.CodeOf(m.Unload()) }, func() any { return gpu.ErrInvalidHandle }},
		"Function.Launch":   {func() any { return gpu.CodeOf(f.Launch(s, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0)) }, func() any { return gpu.ErrInvalidHandle }},
		"Function.LaunchA":  {func() any { return gpu.CodeOf(f.LaunchArgs(s, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, a)) }, func() any { return gpu.ErrInvalidHandle }},
		"Function.LaunchC":  {func() any { return gpu.CodeOf(f.LaunchCooperative(s, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0)) }, func() any { return gpu.ErrInvalidHandle }},
		"Function.LaunchCA": {func() any { return gpu.CodeOf(f.LaunchCooperativeArgs(s, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, a)) }, func() any { return gpu.ErrInvalidHandle }},
		"LaunchKernelGGL":   {func() any { return gpu.CodeOf(module.LaunchKernelGGL(f, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, s)) }, func() any { return gpu.ErrInvalidDeviceFunction }},
		"LaunchKernel":      {func() any { return gpu.CodeOf(module.LaunchKernel(f, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, a, 0, s)) }, func() any { return gpu.ErrInvalidDeviceFunction }},
		"MaxCoopBlocks":     {func() any { _, err := module.MaxCooperativeBlocks(f, 1, 0); return gpu.CodeOf(err) }, func() any { return gpu.ErrInvalidDeviceFunction }},
		"Occupancy":         {func() any { _, _, err := module.OccupancyMaxPotentialBlockSize(f, 0, 0); return gpu.CodeOf(err) }, func() any { return gpu.ErrInvalidDeviceFunction }},
	}
	for name, c := range values {
		var got any
		if assert.NotPanics(t, func() { got = c.got() }, name) {
			assert.Equal(t, c.want(), got, name)
		}
	}
}

// A nil *Args reaches the launch, which refuses it.
func TestNilArgsLaunch(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	var a *module.Args
	err = f.LaunchArgs(nil, gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, a.Float32(1))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "nil Args")
}
