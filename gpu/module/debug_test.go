package module_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

type boomArgs struct{ N int32 }

var boom = cpu.Define("test_boom", func(g *cpu.Group, a *boomArgs) {
	if a.N < 0 {
		panic("negative n")
	}
})

// HIP_LAUNCH_BLOCKING makes the launch itself return its kernel's failure;
// AMD_LOG_LEVEL=3 logs every launch.
func TestLaunchBlockingAndLog(t *testing.T) {
	t.Setenv("HIP_LAUNCH_BLOCKING", "1")
	t.Setenv("AMD_LOG_LEVEL", "3")
	var log bytes.Buffer
	gpu.SetLogOutput(&log)
	defer gpu.SetLogOutput(nil)
	dev := setup(t)
	m, err := module.Load(dev, cpu.NewSet("boom", boom))
	if err != nil {
		t.Fatal(err)
	}
	f := m.MustFunction("test_boom")
	s, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(1)); err != nil {
		t.Fatal(err)
	}
	err = f.Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(-1))
	if !errors.Is(err, gpu.ErrLaunchFailure) || !strings.Contains(err.Error(), "test_boom") {
		t.Fatalf("blocking launch of a failing kernel: %v", err)
	}
	if !strings.Contains(log.String(), "launch test_boom grid") {
		t.Fatalf("log: %q", log.String())
	}
	t.Log(err)
}
