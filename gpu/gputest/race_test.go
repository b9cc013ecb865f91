package gputest_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

type histogramArgs struct {
	Data rocr.ConstPtr[uint32]
	Bins rocr.Ptr[uint32]
	N    int32
	NBin int32
}

// racyHistogram counts with plain increments: work-groups that hit the
// same bin race, as they would on a GPU.
var racyHistogram = kernel.Define("gputest_racy_histogram", func(g *kernel.Block, a *histogramArgs) {
	lo, hi := g.Span(0, int(a.N))
	data, bins := a.Data.Slice(g, lo, hi), a.Bins.Slice(g, 0, int(a.NBin))
	for _, v := range data {
		bins[v%uint32(a.NBin)]++
	}
})

// atomicHistogram is the correct one.
var atomicHistogram = kernel.Define("gputest_atomic_histogram", func(g *kernel.Block, a *histogramArgs) {
	lo, hi := g.Span(0, int(a.N))
	data := a.Data.Slice(g, lo, hi)
	for _, v := range data {
		atomic.AddUint32(a.Bins.At(g, int(v%uint32(a.NBin))), 1)
	}
})

var histogramKernels = kernel.NewSet("gputest-histogram", racyHistogram, atomicHistogram)

// histogramChild is the environment variable that makes
// TestHistogramChild run a histogram kernel; the parent test reads what
// the race detector says about it.
const histogramChild = "HIPGO_TEST_HISTOGRAM"

func TestHistogramChild(t *testing.T) {
	kernel := os.Getenv(histogramChild)
	if kernel == "" {
		t.Skip("run by TestRaceDetectorSeesKernels")
	}
	const n, nbin, rounds = 1 << 14, 16, 8
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, histogramKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	values := make([]uint32, n)
	for i := range values {
		values[i] = uint32(i * 7)
	}
	data, err := buffer.FromSlice(dev, values)
	require.NoError(t, err)
	defer func() { assert.NoError(t, data.Free()) }()
	bins, err := buffer.New[uint32](dev, nbin)
	require.NoError(t, err)
	defer func() { assert.NoError(t, bins.Free()) }()
	require.NoError(t, bins.Fill(0))
	fn := m.MustFunction(kernel)
	for range rounds {
		require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, s, data, bins, int32(n), int32(nbin)))
	}
	got, err := bins.ToSlice() // the host reads after the kernels: ordered
	require.NoError(t, err)
	total := 0
	for _, c := range got {
		total += int(c)
	}
	if kernel == "gputest_atomic_histogram" {
		assert.Equal(t, n*rounds, total)
	}
}

// runHistogram runs TestHistogramChild with kernel in a child test binary
// and returns its output and exit error.
func runHistogram(t *testing.T, kernel string) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHistogramChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), histogramChild+"="+kernel)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// The race detector watches the cpu agent's memory under -race: a kernel
// whose work-groups race is reported with both stacks, and a correct one is
// not.
func TestRaceDetectorSeesKernels(t *testing.T) {
	if !raceflag.Enabled {
		t.Skip("the race detector is off: run with -race")
	}
	// The detector keeps a short history per address, so one run may miss
	// a race that happened: a few runs must see it.
	var out string
	var err error
	for range 3 {
		if out, err = runHistogram(t, "gputest_racy_histogram"); err != nil {
			break
		}
	}
	require.Error(t, err, "the race fails the child test:\n%s", out)
	assert.Contains(t, out, "WARNING: DATA RACE")
	assert.Contains(t, out, "Previous write at")
	assert.Contains(t, out, "gputest_test.init.func", "the kernel's frames are in the report")

	out, err = runHistogram(t, "gputest_atomic_histogram")
	assert.NoError(t, err, out)
	assert.NotContains(t, out, "DATA RACE")
	assert.Contains(t, out, "--- PASS: TestHistogramChild")
}

type countArgs struct {
	Count rocr.Ptr[uint32]
}

// racyCount is the smallest racy histogram: every work-item of every
// work-group adds one to count[0] with a plain increment.
var racyCount = kernel.Define("gputest_racy_count", func(b *kernel.Block, a *countArgs) {
	count := kernelimpl.View(b, a.Count, 1)
	for range b.Threads() {
		count[0]++
	}
})

var countKernels = kernel.NewSet("gputest-count", racyCount)

// countChild makes TestRacyCountChild run racyCount over the number of
// work-groups it holds.
const countChild = "HIPGO_TEST_RACY_COUNT_GROUPS"

func TestRacyCountChild(t *testing.T) {
	groups, err := strconv.Atoi(os.Getenv(countChild))
	if err != nil {
		t.Skip("run by TestRaceDetectorSeesEveryRun")
	}
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, countKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	count, err := buffer.New[uint32](dev, 1)
	require.NoError(t, err)
	defer func() { assert.NoError(t, count.Free()) }()
	require.NoError(t, count.Fill(0))
	require.NoError(t, module.LaunchKernelGGL(m.MustFunction("gputest_racy_count"), gpu.D1(uint32(groups)), gpu.D1(4), 0, s, count))
	require.NoError(t, s.Synchronize())
}

// Under -race the cpu agent runs each work-group on a goroutine of its
// own (cpu.RaceWindow): two groups that both do count[0]++ are reported
// in every run, not in some. Each run is a child process, since the
// detector reports a pair of stacks once per process.
func TestRaceDetectorSeesEveryRun(t *testing.T) {
	if !raceflag.Enabled {
		t.Skip("the race detector is off: run with -race")
	}
	for _, groups := range []int{2, cpu.RaceWindow} {
		runs := 20
		if groups > 2 {
			runs = 5
		}
		caught := 0
		var out []byte
		for range runs {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRacyCountChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", countChild, groups))
			var err error
			out, err = cmd.CombinedOutput()
			if err != nil && bytes.Contains(out, []byte("WARNING: DATA RACE")) && bytes.Contains(out, []byte("gputest_test.init.func")) {
				caught++
			}
		}
		assert.Equal(t, runs, caught, "%d groups: races reported in %d of %d runs; the last said:\n%s", groups, caught, runs, out)
	}
}

type lockstepArgs struct {
	Count rocr.Ptr[uint32]
	Racy  int32
}

// racyLockstep runs as coroutines (a barrier): work-item 0 of each group
// adds one to its group's own count, or, when Racy, to count[0], which
// every group then races on.
var racyLockstep = kernel.Define("gputest_racy_lockstep", func(b *kernel.Block, a *lockstepArgs) {
	count := kernelimpl.View(b, a.Count, int64(b.GridDim().X))
	racy := a.Racy != 0
	b.Lockstep(func(t kernel.Thread) {
		t.SyncThreads()
		if t.ThreadIdx().X == 0 {
			if racy {
				count[0]++
			} else {
				count[t.BlockIdx().X]++
			}
		}
		t.SyncThreads()
	})
}, kernelimpl.Lockstep())

var lockstepKernels = kernel.NewSet("gputest-lockstep", racyLockstep)

// lockstepChild makes TestRacyLockstepChild run racyLockstep over the
// number of work-groups it holds.
const lockstepChild = "HIPGO_TEST_RACY_LOCKSTEP_GROUPS"

func TestRacyLockstepChild(t *testing.T) {
	groups, err := strconv.Atoi(os.Getenv(lockstepChild))
	if err != nil {
		t.Skip("run by TestRaceDetectorSeesLockstep")
	}
	dev := gputest.DeviceOf(t, "cpu")
	m, err := module.Load(dev, lockstepKernels)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	count, err := buffer.New[uint32](dev, groups)
	require.NoError(t, err)
	defer func() { assert.NoError(t, count.Free()) }()
	require.NoError(t, count.Fill(0))
	fn := m.MustFunction("gputest_racy_lockstep")
	// Race-free launches first, so that the racy one runs on the
	// coroutines the agent kept from them.
	for _, racy := range []int32{0, 0, 1} {
		require.NoError(t, module.LaunchKernelGGL(fn, gpu.D1(uint32(groups)), gpu.D1(64), 0, s, count, racy))
	}
	require.NoError(t, s.Synchronize())
}

// The cpu agent keeps a lockstep kernel's coroutines from one work-group
// to the next; under -race a later group's coroutines are never ordered
// after a group it may race with, so two groups of a launch that race are
// reported in every run.
func TestRaceDetectorSeesLockstep(t *testing.T) {
	if !raceflag.Enabled {
		t.Skip("the race detector is off: run with -race")
	}
	for _, groups := range []int{2, cpu.RaceWindow + 2} {
		runs := 4
		if groups > 2 {
			runs = 2
		}
		caught := 0
		var out []byte
		for range runs {
			cmd := exec.Command(os.Args[0], "-test.run=^TestRacyLockstepChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", lockstepChild, groups))
			var err error
			out, err = cmd.CombinedOutput()
			if err != nil && bytes.Contains(out, []byte("WARNING: DATA RACE")) && bytes.Contains(out, []byte("gputest_test.init.func")) {
				caught++
			}
		}
		assert.Equal(t, runs, caught, "%d groups: races reported in %d of %d runs; the last said:\n%s", groups, caught, runs, out)
	}
}
