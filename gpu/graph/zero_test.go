package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A zero Graph is an empty graph, as New makes; a zero Exec, which
// Instantiate did not make, and a zero Stream are refused with an error
// that says so; none panics.
func TestZeroValues(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()

	g := &graph.Graph{}
	_, err = g.AddKernel(saxpy(ks, 2, x, x))
	require.NoError(t, err)
	assert.Equal(t, 1, g.Len())
	real, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer real.Destroy()
	require.NoError(t, g.Destroy())

	e := &graph.Exec{}
	zs := &stream.Stream{}
	assert.False(t, graph.IsCapturing(zs))
	ops := map[string]struct {
		f    func() error
		code gpu.ErrorCode
		msg  string
	}{
		"Exec.Launch":             {func() error { return e.Launch(s) }, gpu.ErrInvalidValue, "zero Exec"},
		"Exec.Launch(nil)":        {func() error { return e.Launch(nil) }, gpu.ErrInvalidValue, "zero Exec"},
		"Exec.Launch(zero)":       {func() error { return e.Launch(zs) }, gpu.ErrInvalidValue, "zero Exec"},
		"Exec.SetKernelParams":    {func() error { return e.SetKernelParams(nil, saxpy(ks, 2, x, x)) }, gpu.ErrInvalidValue, "zero Exec"},
		"Exec.Destroy":            {e.Destroy, gpu.ErrInvalidValue, "zero Exec"},
		"Launch on a zero Stream": {func() error { return real.Launch(zs) }, gpu.ErrInvalidHandle, "zero Stream"},
		"BeginCapture":            {func() error { return graph.BeginCapture(zs) }, gpu.ErrInvalidHandle, "zero Stream"},
		"EndCapture":              {func() error { _, err := graph.EndCapture(zs); return err }, gpu.ErrInvalidHandle, "zero Stream"},
	}
	for name, c := range ops {
		var err error
		if assert.NotPanics(t, func() { err = c.f() }, name) {
			assert.ErrorIs(t, err, c.code, name)
			assert.ErrorContains(t, err, c.msg, name)
		}
	}
}
