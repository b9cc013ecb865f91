package module_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type scaleArgs struct {
	X     rocr.Ptr[float32]
	Alpha float32
	N     int32
}

var scale = kernel.Define("test_scale", func(g *kernel.Block, a *scaleArgs) {
	lo, hi := g.Span(0, int(a.N))
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] *= a.Alpha
	}
})

var set = kernel.NewSet("module-test", scale)

func setup(t *testing.T) *gpu.Device { return cputest.Device(t) }

func TestLaunchAndChecks(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	if err != nil {
		t.Fatal(err)
	}
	f, err := m.Function("test_scale")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	x, err := buffer.FromSlice(dev, host)
	if err != nil {
		t.Fatal(err)
	}
	s, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := module.LaunchKernelGGL(f, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, s, x, float32(2), int32(n)); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	out, err := x.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out {
		if v != float32(2*i) {
			t.Fatalf("out[%d]=%v", i, v)
		}
	}
	cases := []struct {
		name string
		err  error
		call func() error
	}{
		{"count", gpu.ErrInvalidValue, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x) }},
		{"int for int32", gpu.ErrInvalidValue, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x, float32(1), n) }},
		{"value for buffer", gpu.ErrInvalidValue, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, int64(0), float32(1), int32(n)) }},
		{"zero grid", gpu.ErrInvalidConfiguration, func() error { return f.Launch(s, gpu.D1(0), gpu.D1(1), 0, x, float32(1), int32(n)) }},
		{"block too big", gpu.ErrInvalidConfiguration, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(2048), 0, x, float32(1), int32(n)) }},
		{"shared too big", gpu.ErrInvalidValue, func() error { return f.Launch(s, gpu.D1(1), gpu.D1(1), 1<<30, x, float32(1), int32(n)) }},
		// hipModuleLaunchKernel's code, with ErrInvalidConfiguration still matching.
		{"zero grid is InvalidValue", gpu.ErrInvalidValue, func() error { return f.Launch(s, gpu.D1(0), gpu.D1(1), 0, x, float32(1), int32(n)) }},
		{"GGL zero grid", gpu.ErrInvalidConfiguration, func() error {
			return module.LaunchKernelGGL(f, gpu.D1(0), gpu.D1(1), 0, s, x, float32(1), int32(n))
		}},
	}
	for _, c := range cases {
		err := c.call()
		if !errors.Is(err, c.err) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := x.Free(); err != nil {
		t.Fatal(err)
	}
	if err := x.Free(); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("double free: %v", err)
	}
	if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x, float32(1), int32(n)); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("freed buffer: %v", err)
	}
	if err := s.Destroy(); err != nil {
		t.Fatal(err)
	}
}

// Launch + synchronize after a warm-up: fences in flight are pooled once
// they complete, so the steady state allocates nothing.
func TestLaunchAllocs(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	const n = 1000
	x, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	launch := func() {
		require.NoError(t, f.Launch(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, x, float32(1), int32(n)))
		require.NoError(t, s.Synchronize())
	}
	for range 10 {
		launch()
	}
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(100, launch), "Launch + Synchronize: allocations")
}
