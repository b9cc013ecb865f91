package kernels_test

import (
	"errors"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/kernels"
)

// The generated launchers pass their typed arguments straight to
// Function.Launch, which does not retain them: a launch and a synchronize
// allocate nothing once the stream's pools are warm.
func TestGeneratedLauncherAllocs(t *testing.T) {
	dev, s := device(t)
	const n = 4096
	a, b := upload(t, dev, make([]float32, n)), upload(t, dev, make([]float32, n))
	c, err := buffer.New[float32](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	grid, block := gpu.D1(gpu.Blocks(n, kernels.ElementwiseBlock)), gpu.D1(kernels.ElementwiseBlock)
	launch := func() {
		if err := kernels.LaunchVectorAdd(s, grid, block, 0, a, b, c, n); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		launch()
	}
	if raceflag.Enabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	if allocs := testing.AllocsPerRun(100, launch); allocs != 0 {
		t.Errorf("LaunchVectorAdd + Synchronize allocates %v times", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = kernels.Empty(s); _ = s.Synchronize() }); allocs != 0 {
		t.Errorf("Empty + Synchronize allocates %v times", allocs)
	}
}

// The generated launchers check what the compiler cannot: a nil stream or
// buffer is an error naming the kernel, and nothing is queued.
func TestGeneratedLauncherChecks(t *testing.T) {
	dev, s := device(t)
	a := upload(t, dev, make([]float32, 64))
	if err := kernels.LaunchFillF32(nil, gpu.D1(1), gpu.D1(64), 0, a, 1, 64); !errors.Is(err, gpu.ErrInvalidHandle) {
		t.Errorf("nil stream: %v", err)
	}
	if err := kernels.LaunchFillF32(s, gpu.D1(1), gpu.D1(64), 0, nil, 1, 64); !errors.Is(err, gpu.ErrInvalidValue) {
		t.Errorf("nil buffer: %v", err)
	} else {
		t.Log(err)
	}
	if err := kernels.LaunchFillF32(s, gpu.D1(1), gpu.D1(64), 0, a, 3, 64); err != nil {
		t.Fatal(err)
	}
	for i, v := range download(t, s, a) {
		if v != 3 {
			t.Fatalf("fill_f32[%d] = %v", i, v)
		}
	}
	lib, err := kernels.Load(dev)
	if err != nil {
		t.Fatal(err)
	}
	if lib.FillF32 == nil || lib.Functions.Sgemm == nil || lib.FillF32.Name() != "fill_f32" {
		t.Errorf("Load: %+v", lib.Functions)
	}
}
