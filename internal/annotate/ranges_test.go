package annotate_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/internal/annotate/annotatetest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

// work runs, inside a user range, one of each operation hipgo names a
// range for: synchronous and asynchronous copies and fills, a kernel, a
// mark and a graph launch.
func work(t *testing.T) {
	dev := gputest.Device(t)
	const n = 1024
	x, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer x.Free()
	y, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer y.Free()
	z, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer z.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	g := graph.New()
	_, err = graph.AddFill(g, z, float32(3))
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()

	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	ctx := context.Background()
	r := gpu.StartRange(ctx, "step")
	require.NoError(t, x.CopyFrom(host))
	require.NoError(t, stream.CopyToDevice(s, y, 0, host))
	require.NoError(t, stream.Fill(s, z, float32(1)))
	require.NoError(t, kernels.VectorAdd(s, x, y, z, n))
	require.NoError(t, s.Synchronize())
	require.NoError(t, x.Fill(2))
	gpu.Mark(ctx, "checkpoint")
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	out := make([]float32, n)
	require.NoError(t, z.CopyTo(out))
	r.End()
	assert.Equal(t, float32(3), out[n-1], "the graph's fill ran last")
}

// One range per operation, named by the kernel for a launch, each inside
// the user's range, pushed and popped on one thread.
var want = []string{
	"step > memcpy host to device",
	"step > memcpy async host to device",
	"step > memset async",
	"step > vector_add",
	"step > memset",
	"step > mark checkpoint",
	"step > graph launch",
	"step > memcpy device to host",
	"step",
}

// inStep keeps the ranges inside the user's. The vector add kernel is
// vector_add on the cpu agent and its C++ form, vector_add_checked, on a
// GPU: both read as vector_add.
func inStep(ranges []string) []string {
	var out []string
	for _, r := range ranges {
		if r == "step > vector_add_checked" {
			r = "step > vector_add"
		}
		if r == "step" || strings.HasPrefix(r, "step > ") {
			out = append(out, r)
		}
	}
	return out
}

func TestNVTXRanges(t *testing.T) {
	log := annotatetest.AttachNVTX(t, true)
	work(t)
	evs := log.Events(t)
	require.NotEmpty(t, evs)
	assert.Equal(t, "init", evs[0].Kind, "the tool attached once, before any range")
	assert.Equal(t, want, inStep(annotatetest.Ranges(t, evs)))
}

func TestROCTXRanges(t *testing.T) {
	log := annotatetest.AttachROCTX(t, true)
	work(t)
	assert.Equal(t, want, inStep(annotatetest.Ranges(t, log.Events(t))))
}

// HIPGO_ROCTX=0 keeps roctx closed although rocprof asked for it.
func TestROCTXOff(t *testing.T) {
	annotatetest.AttachROCTX(t, false)
	t.Setenv("HIPGO_ROCTX", "0")
	annotate.Reset()
	assert.False(t, annotate.On())
}

// A profiler that names a library that is not there leaves ranges off
// and says why.
func TestMissingInjection(t *testing.T) {
	annotatetest.Detach(t)
	t.Setenv("NVTX_INJECTION64_PATH", "/nonexistent/libinjection.so")
	annotate.Reset()
	assert.False(t, annotate.On())
	assert.ErrorContains(t, annotate.Err(), "/nonexistent/libinjection.so")
}

// Launches, copies and user ranges from many goroutines at once: every
// thread range is popped on the thread that pushed it, and every process
// range ends.
func TestRangesRace(t *testing.T) {
	log := annotatetest.AttachNVTX(t, true)
	dev := gputest.Device(t)
	const workers, rounds, n = 8, 20, 256
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				s, err := stream.New(dev)
				if err != nil {
					return err
				}
				defer s.Destroy()
				a, err := buffer.New[float32](dev, n)
				if err != nil {
					return err
				}
				defer a.Free()
				for i := 0; i < rounds; i++ {
					r := gpu.StartRange(context.Background(), "worker")
					if err := stream.Fill(s, a, float32(i)); err != nil {
						return err
					}
					if err := kernels.VectorAdd(s, a, a, a, n); err != nil {
						return err
					}
					runtime.Gosched()
					if err := s.Synchronize(); err != nil {
						return err
					}
					r.End()
				}
				return nil
			}()
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < rounds; i++ {
			gpu.Mark(context.Background(), "tick")
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	count := map[string]int{}
	for _, e := range log.Events(t) {
		count[e.Kind+" "+e.Name]++
	}
	annotatetest.Ranges(t, log.Events(t))
	assert.Equal(t, workers*rounds, count["start worker"])
	assert.Equal(t, workers*rounds, count["push vector_add"])
	assert.Equal(t, workers*rounds, count["push memset async"])
	assert.Equal(t, rounds, count["mark tick"])
}

// The program's ranges and marks allocate nothing, with a profiler
// attached and without: names are made C strings once.
func TestRangeAllocs(t *testing.T) {
	ctx := context.Background()
	step := func() {
		r := gpu.StartRange(ctx, "step")
		gpu.Mark(ctx, "checkpoint")
		r.End()
	}
	for _, tc := range []struct {
		name   string
		attach func(testing.TB)
	}{
		{"none", annotatetest.Detach},
		{"nvtx", func(tb testing.TB) { annotatetest.AttachNVTX(tb, false) }},
		{"roctx", func(tb testing.TB) { annotatetest.AttachROCTX(tb, false) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.attach(t)
			step()
			testenv.SkipAllocsUnderRace(t)
			assert.Zero(t, testing.AllocsPerRun(100, step), "StartRange, Mark and End with %s: allocations", tc.name)
		})
	}
}

// BenchmarkOn is the check every launch, copy and fill makes when no
// profiler is attached.
func BenchmarkOn(b *testing.B) {
	annotatetest.Detach(b)
	n := 0
	for i := 0; i < b.N; i++ {
		if annotate.On() {
			n++
		}
	}
	if n != 0 {
		b.Fatal("attached")
	}
}

// TestBuildFakes writes the fake profiler libraries into
// $HIPGO_FAKE_PROFILERS_OUT, for a machine that has no C compiler (the
// GPU machine runs this package's test binary with HIPGO_FAKE_PROFILERS
// pointing at them).
func TestBuildFakes(t *testing.T) {
	dir := os.Getenv("HIPGO_FAKE_PROFILERS_OUT")
	if dir == "" {
		t.Skip("HIPGO_FAKE_PROFILERS_OUT names no directory to write the fakes to")
	}
	annotatetest.Build(t, dir)
}
