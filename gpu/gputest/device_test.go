package gputest_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

func TestLeakReportNamesTestAndObjects(t *testing.T) {
	r := newRecorder(t, "TestUserLeaks")
	var dev *gpu.Device
	r.run(func(tb testing.TB) {
		dev = gputest.Device(tb)
		_, err := buffer.New[float32](dev, 1024) // leaked
		require.NoError(t, err)
		_, err = stream.New(dev) // leaked
		require.NoError(t, err)
		_, err = stream.NewEvent(dev, stream.EventDefault) // leaked
		require.NoError(t, err)
		_, err = module.Load(dev, kernels.Library()) // leaked
		require.NoError(t, err)
		freed, err := buffer.New[int64](dev, 8)
		require.NoError(t, err)
		require.NoError(t, freed.Free())
		_, err = kernels.Load(dev) // the library cache of the device: not the test's to free
		require.NoError(t, err)
	})
	require.Empty(t, r.errorText(), "nothing is reported before the test ends")
	r.finish()
	msg := r.errorText()
	t.Log(msg)
	assert.Contains(t, msg, "TestUserLeaks leaked 4 object(s)")
	assert.Contains(t, msg, "buffer of 1024 float32 (4096 bytes)")
	assert.Contains(t, msg, "stream (queue")
	assert.Contains(t, msg, "event, made at")
	assert.Contains(t, msg, "module (go code for go")
	assert.Contains(t, msg, "gputest/device_test.go:", "each object says where the test made it")
	assert.NotContains(t, msg, "int64", "a freed buffer is not reported")
	assert.Equal(t, 4, countLines(msg, "made at"))

	// What leaked was released, and the view is closed.
	assert.Error(t, dev.Valid())
}

func TestLeakReportNamesTheTestsLine(t *testing.T) {
	r := newRecorder(t, "TestBufferLeaks")
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		_, err := buffer.New[float32](dev, 4) // leaked
		require.NoError(t, err)
		_, err = buffer.FromSlice(dev, []float32{1, 2, 3}) // leaked
		require.NoError(t, err)
		_, err = buffer.NewHost[float32](dev, 2) // leaked
		require.NoError(t, err)
	})
	r.finish()
	msg := r.errorText()
	require.Equal(t, 3, countLines(msg, "made at"), msg)
	assert.Equal(t, 3, countLines(msg, "made at gputest/device_test.go:"), "each buffer says where the test made it, not where hipgo did:\n%s", msg)
}

func countLines(s, sub string) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}

func TestNoReportWhenEverythingIsReleased(t *testing.T) {
	r := newRecorder(t, "TestTidy")
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		s, err := stream.New(dev)
		require.NoError(t, err)
		x, err := buffer.FromSlice(dev, []float32{1, 2, 3})
		require.NoError(t, err)
		require.NoError(t, kernels.Saxpy(s, 2, x, x, 3))
		ev, err := stream.NewEvent(dev, stream.EventDefault)
		require.NoError(t, err)
		require.NoError(t, s.Record(ev))
		def, err := stream.DefaultStream(dev) // the device's own: released with it
		require.NoError(t, err)
		require.NoError(t, kernels.Empty(def))
		require.NoError(t, ev.Destroy())
		require.NoError(t, s.Destroy())
		got, err := x.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, []float32{3, 6, 9}, got)
		require.NoError(t, x.Free())
	})
	r.finish()
	assert.Empty(t, r.errorText())
}

func TestCleanupWaitsForTheTestsStreams(t *testing.T) {
	r := newRecorder(t, "TestAsync")
	var x *buffer.Buffer[float32]
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		s, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		x, err = buffer.New[float32](dev, 1<<16)
		require.NoError(t, err)
		require.NoError(t, kernels.FillF32(s, x, 1, x.Len()))
		for range 50 {
			require.NoError(t, kernels.Saxpy(s, 1, x, x, x.Len()))
		}
	})
	r.finish() // no Synchronize in the test: cleanup waits, then frees
	assert.Contains(t, r.errorText(), "buffer of 65536 float32")
	assert.ErrorContains(t, x.Free(), "already freed", "the leaked buffer was released after its work")
}

func TestViewsDoNotShutDownOtherTests(t *testing.T) {
	outer := gputest.Device(t)
	s, err := stream.New(outer)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()

	r := newRecorder(t, "TestInner")
	r.run(func(tb testing.TB) { gputest.Device(tb) })
	r.finish()
	assert.Empty(t, r.errorText())
	assert.NoError(t, outer.Valid())
	assert.NoError(t, kernels.Empty(s))
	assert.NoError(t, s.Synchronize())
}

func TestDeviceOfMissingDriver(t *testing.T) {
	t.Setenv("HIPGO_REQUIRE", "")
	r := newRecorder(t, "TestNeedsROCm")
	r.run(func(tb testing.TB) { gputest.DeviceOf(tb, "rocm") })
	assert.Contains(t, r.skipped, "0 rocm device(s), 1 needed")
	assert.Empty(t, r.errorText())

	t.Setenv("HIPGO_REQUIRE", "clang,rocm")
	r = newRecorder(t, "TestNeedsROCm")
	r.run(func(tb testing.TB) { gputest.DeviceOf(tb, "rocm") })
	assert.Empty(t, r.skipped)
	assert.Contains(t, r.errorText(), "HIPGO_REQUIRE=\"clang,rocm\" requires rocm")
}

func TestDevicesTooFew(t *testing.T) {
	t.Setenv("HIPGO_REQUIRE", "")
	r := newRecorder(t, "TestNeedsThree")
	r.run(func(tb testing.TB) { gputest.Devices(tb, "cpu", 3) })
	assert.Contains(t, r.skipped, "2 cpu device(s), 3 needed")
	assert.Contains(t, r.skipped, "HIPGO_CPU_AGENTS=3")

	t.Setenv("HIPGO_REQUIRE", "multi-gpu")
	r = newRecorder(t, "TestNeedsThree")
	r.run(func(tb testing.TB) { gputest.Devices(tb, "cpu", 3) })
	assert.Contains(t, r.errorText(), "requires multi-gpu")
}

// Parallel tests on both cpu agents, each with its own streams, buffers
// and modules, alongside each other's cleanups.
func TestParallelOnTwoAgents(t *testing.T) {
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			devs := gputest.Devices(t, "cpu", 2)
			require.NotEqual(t, devs[0].Ordinal(), devs[1].Ordinal())
			for _, dev := range devs {
				s, err := stream.New(dev)
				require.NoError(t, err)
				n := 1000 + i
				x, err := buffer.New[float32](dev, n)
				require.NoError(t, err)
				require.NoError(t, kernels.FillF32(s, x, float32(i), n))
				sum, err := kernels.Sum(s, x, n)
				require.NoError(t, err)
				assert.InDelta(t, float64(i*n), float64(sum), 1e-3*float64(i*n)+1e-6)
				require.NoError(t, x.Free())
				require.NoError(t, s.Destroy())
			}
		})
	}
}

// One device of a driver the run requires, where a test needs two, skips
// unless multi-gpu is required too: the H200 machine has one GPU.
func TestDevicesOneOfTwo(t *testing.T) {
	t.Setenv("HIPGO_REQUIRE", "cpu")
	r := newRecorder(t, "TestNeedsThree")
	r.run(func(tb testing.TB) { gputest.Devices(tb, "cpu", 3) })
	assert.Contains(t, r.skipped, "2 cpu device(s), 3 needed")
	assert.Empty(t, r.errorText())
}

// A buffer the test dropped unfreed is released by the garbage
// collector's backstop, counted, and still reported as the test's leak,
// with where the test made it.
func TestLeakReportNamesCollectedBuffer(t *testing.T) {
	r := newRecorder(t, "TestDropsBuffer")
	before := gputest.Backstops()
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		func() {
			_, err := buffer.New[float32](dev, 256) // dropped
			require.NoError(t, err)
		}()
		for i := 0; i < 100 && gputest.Backstops() == before; i++ {
			runtime.GC()
			runtime.Gosched()
		}
		require.Equal(t, before+1, gputest.Backstops(), "the dropped buffer was not released")
	})
	r.finish()
	msg := r.errorText()
	t.Log(msg)
	assert.Contains(t, msg, "TestDropsBuffer leaked 1 object(s)")
	assert.Contains(t, msg, "buffer of 256 float32 (1024 bytes), made at gputest/device_test.go:")
	assert.Contains(t, msg, "released by the garbage collector's backstop")
}

// A graph left undestroyed leaks its alloc node's memory, which the
// report names as graph memory.
func TestLeakReportNamesGraphMemory(t *testing.T) {
	r := newRecorder(t, "TestGraphLeaks")
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		_, _, err := graph.AddMemAlloc[float32](graph.New(), dev, 64) // leaked with its graph
		require.NoError(t, err)
	})
	r.finish()
	msg := r.errorText()
	assert.Contains(t, msg, "TestGraphLeaks leaked 1 object(s)")
	assert.Contains(t, msg, "graph memory (an alloc node's buffer) of 64 float32")
	assert.Contains(t, msg, "gputest/device_test.go:")
}

// An event the test dropped undestroyed is released by the backstop,
// counted, and reported as the test's leak.
func TestLeakReportNamesCollectedEvent(t *testing.T) {
	r := newRecorder(t, "TestDropsEvent")
	before := gputest.Backstops()
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		func() {
			_, err := stream.NewEvent(dev, stream.EventDefault) // dropped
			require.NoError(t, err)
		}()
		for i := 0; i < 100 && gputest.Backstops() == before; i++ {
			runtime.GC()
			runtime.Gosched()
		}
		require.Equal(t, before+1, gputest.Backstops(), "the dropped event was not released")
	})
	r.finish()
	msg := r.errorText()
	assert.Contains(t, msg, "TestDropsEvent leaked 1 object(s)")
	assert.Contains(t, msg, "event, made at gputest/device_test.go:")
	assert.Contains(t, msg, "released by the garbage collector's backstop")
}

// A stream the test dropped undestroyed, with work queued, is destroyed
// by the backstop once the work ran, counted, and reported as the test's
// leak.
func TestLeakReportNamesCollectedStream(t *testing.T) {
	r := newRecorder(t, "TestDropsStream")
	before := gputest.Backstops()
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		func() {
			s, err := stream.New(dev) // dropped
			require.NoError(t, err)
			require.NoError(t, s.LaunchHostFunc(func() error { return nil }))
		}()
		ok := gputest.Collect(func() bool { return gputest.Backstops() > before })
		require.True(t, ok, "the dropped stream was not destroyed")
		require.Equal(t, before+1, gputest.Backstops())
	})
	r.finish()
	msg := r.errorText()
	assert.Contains(t, msg, "TestDropsStream leaked 1 object(s)")
	assert.Contains(t, msg, "stream (queue ")
	assert.Contains(t, msg, "made at gputest/device_test.go:")
	assert.Contains(t, msg, "released by the garbage collector's backstop")
}

// A module the test dropped unloaded is unloaded by the backstop,
// counted, and reported as the test's leak.
func TestLeakReportNamesCollectedModule(t *testing.T) {
	r := newRecorder(t, "TestDropsModule")
	before := gputest.Backstops()
	r.run(func(tb testing.TB) {
		dev := gputest.Device(tb)
		func() {
			_, err := module.Load(dev, kernels.Library()) // dropped
			require.NoError(t, err)
		}()
		for i := 0; i < 100 && gputest.Backstops() == before; i++ {
			runtime.GC()
			runtime.Gosched()
		}
		require.Equal(t, before+1, gputest.Backstops(), "the dropped module was not unloaded")
	})
	r.finish()
	msg := r.errorText()
	assert.Contains(t, msg, "TestDropsModule leaked 1 object(s)")
	assert.Contains(t, msg, "module (")
	assert.Contains(t, msg, "made at gputest/device_test.go:")
	assert.Contains(t, msg, "released by the garbage collector's backstop")
}
