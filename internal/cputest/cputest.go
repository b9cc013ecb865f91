package cputest

import (
	"strconv"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Agents opens the runtime for tb on the cpu driver alone, with n cpu
// agents, and returns them; the runtime shuts down when tb ends, and a
// failure to shut down fails tb.
func Agents(tb testing.TB, n int) []*rocr.Agent {
	tb.Helper()
	tb.Setenv("HIPGO_DRIVER", "cpu")
	tb.Setenv("HIPGO_CPU_AGENTS", strconv.Itoa(n))
	if err := rocr.Init(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := rocr.ShutDown(); err != nil {
			tb.Error(err)
		}
	})
	ags, err := rocr.Agents()
	if err != nil {
		tb.Fatal(err)
	}
	if len(ags) != n {
		tb.Fatalf("cputest: %d agents, want %d", len(ags), n)
	}
	return ags
}

// Agent is Agents(tb, 1)[0].
func Agent(tb testing.TB) *rocr.Agent {
	tb.Helper()
	return Agents(tb, 1)[0]
}

// SleepArgs is the argument list of Sleep and Fail: one int32.
type SleepArgs struct{ Ms int32 }

// Sleep sleeps Ms milliseconds in each work-group.
var Sleep = kernel.Define("test_sleep", func(g *kernel.Block, a *SleepArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
})

// Fail sleeps Ms milliseconds, then panics: a kernel that fails late.
var Fail = kernel.Define("test_fail", func(g *kernel.Block, a *SleepArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	panic("test_fail failed on purpose")
})

// NoArgs is the argument list of Empty and Panic.
type NoArgs struct{}

// Empty does nothing: the cost of a dispatch alone.
var Empty = kernel.Define("test_empty", func(g *kernel.Block, a *NoArgs) {})

// Panic panics at once.
var Panic = kernel.Define("test_panic", func(g *kernel.Block, a *NoArgs) {
	panic("boom")
})

// OverrunArgs is the argument list of Overrun: a buffer and its length.
type OverrunArgs struct {
	X rocr.Ptr[int32]
	N int32
}

// Overrun reads one element past X[0:N], which the checked Slice refuses:
// the dispatch fails with an illegal address.
var Overrun = kernel.Define("test_overrun", func(g *kernel.Block, a *OverrunArgs) {
	_ = a.X.Slice(g, 0, int(a.N)+1)
})

// Device opens the gpu layer for tb on the cpu driver alone and returns its
// default device; gpu.Shutdown runs when tb ends, and its failure fails tb.
func Device(tb testing.TB) *gpu.Device {
	tb.Helper()
	tb.Setenv("HIPGO_DRIVER", "cpu")
	tb.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			tb.Error(err)
		}
	})
	dev, err := gpu.Default()
	if err == nil && !dev.Properties().IsCPU {
		// An earlier test left the runtime open on another driver (a GPU
		// pack forces HIPGO_DRIVER=cuda): open it again on the cpu agent.
		if err = gpu.Shutdown(); err == nil {
			dev, err = gpu.Default()
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
	if !dev.Properties().IsCPU {
		tb.Fatalf("cputest: the default device is %s, not the cpu agent", dev.Properties().Name)
	}
	return dev
}
