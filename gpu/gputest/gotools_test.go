package gputest_test

import (
	"bytes"
	"errors"
	"io"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	xtrace "golang.org/x/exp/trace"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// probeKernel writes the goroutine profile from inside the kernel, once:
// the profile shows the labels of the goroutine running it.
var (
	probeMu      sync.Mutex
	probeProfile bytes.Buffer
)

type probeArgs struct{ N int32 }

var probeKernel = kernel.Define("gputest_probe", func(g *kernel.Block, a *probeArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	probeMu.Lock()
	defer probeMu.Unlock()
	_ = pprof.Lookup("goroutine").WriteTo(&probeProfile, 1)
})

func TestKernelRunsWithPprofLabel(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, testKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	s, err := stream.DefaultStream(dev)
	require.NoError(t, err)
	probeMu.Lock()
	probeProfile.Reset()
	probeMu.Unlock()
	require.NoError(t, module.LaunchKernelGGL(m.MustFunction("gputest_probe"), gpu.D1(4), gpu.D1(1), 0, s, int32(0)))
	require.NoError(t, s.Synchronize())

	probeMu.Lock()
	prof := probeProfile.String()
	probeMu.Unlock()
	// The debug=1 profile groups goroutines by stack and labels: the
	// group writing the profile is the kernel's, and must carry its label.
	var kernelGroup string
	for _, group := range strings.Split(prof, "\n\n") {
		if strings.Contains(group, "runtime/pprof.(*Profile).WriteTo") {
			kernelGroup = group
		}
	}
	require.NotEmpty(t, kernelGroup, "the kernel's goroutine is in the profile:\n%s", prof)
	assert.Contains(t, kernelGroup, `"`+cpu.LabelKernel+`":"gputest_probe"`, kernelGroup)
}

func TestKernelsInGoExecutionTrace(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skipf("a trace is already being recorded (go test -trace?): %v", err)
	}
	dev := gputest.DeviceOf(t, "cpu")
	s, err := stream.New(dev)
	if err == nil {
		x, xerr := buffer32(dev, 4096)
		err = errors.Join(xerr, kernels.Saxpy(s, 2, x, x, 4096), s.Synchronize(), x.Free(), s.Destroy())
	}
	trace.Stop()
	require.NoError(t, err)

	r, err := xtrace.NewReader(&buf)
	require.NoError(t, err)
	var regions []string
	var logs []string
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch ev.Kind() {
		case xtrace.EventRegionBegin:
			regions = append(regions, ev.Region().Type)
		case xtrace.EventLog:
			if l := ev.Log(); l.Category == "hipgo" {
				logs = append(logs, l.Message)
			}
		}
	}
	assert.Contains(t, regions, "saxpy", "the kernel is a region")
	assert.Contains(t, regions, "fill", "so is the fill")
	var saxpy string
	for _, l := range logs {
		if strings.HasPrefix(l, "saxpy ") {
			saxpy = l
		}
	}
	require.NotEmpty(t, saxpy, "logs: %q", logs)
	assert.Regexp(t, `^saxpy queue=\d+ packet=\d+ grid_size=\[4096 1 1\] workgroup_size=\[256 1 1\] duration=\S+$`, saxpy)
}
