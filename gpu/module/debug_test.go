package module_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type boomArgs struct{ N int32 }

var boom = kernel.Define("test_boom", func(g *kernel.Block, a *boomArgs) {
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
	m, err := module.Load(dev, kernel.NewSet("boom", boom))
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
	if !strings.Contains(log.String(), ":3:hipgo: launch kernel=test_boom grid=") {
		t.Fatalf("log: %q", log.String())
	}
	t.Log(err)
}

// A program's slog.Logger gets hipgo's messages, each launch at
// slog.LevelInfo with its kernel and shape as attributes, once
// gpu.SetLogLevel asks for them.
func TestSetLogger(t *testing.T) {
	dev := setup(t)
	rec := &testenv.LogRecorder{}
	gpu.SetLogger(slog.New(rec))
	t.Cleanup(func() { gpu.SetLogger(nil); debug.ResetLevel() })
	m, err := module.Load(dev, kernel.NewSet("boom", boom))
	if err != nil {
		t.Fatal(err)
	}
	f := m.MustFunction("test_boom")
	s, err := stream.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	gpu.SetLogLevel(slog.LevelError + 1)
	if err := f.Launch(s, gpu.D1(1), gpu.D1(2), 0, int32(1)); err != nil {
		t.Fatal(err)
	}
	if recs := rec.Records(); len(recs) != 0 {
		t.Fatalf("logging off, yet %d records", len(recs))
	}
	gpu.SetLogLevel(slog.LevelInfo)
	if err := f.Launch(s, gpu.D1(3), gpu.D1(2), 0, int32(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	recs := rec.Records()
	if len(recs) != 1 || recs[0].Level != slog.LevelInfo || recs[0].Message != "launch" {
		t.Fatalf("records %v", recs)
	}
	attrs := map[string]string{}
	recs[0].Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value.String()
		return true
	})
	if attrs["kernel"] != "test_boom" || attrs["shared"] != "0" || !strings.Contains(attrs["grid"], "3") || attrs["device"] == "" {
		t.Fatalf("launch attributes %v", attrs)
	}
}
