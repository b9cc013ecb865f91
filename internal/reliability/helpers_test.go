package reliability_test

import (
	_ "embed" // the test kernels' PTX
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Test kernels. Names carry a prefix: cpu kernels are registered globally.

// spin runs until the dispatch is cancelled (Canceled) or Ms milliseconds
// pass (Ms < 0: until someone else sets *Done, as on the GPU), then sets
// *Done = 1.
type spinArgs struct {
	Done rocr.Ptr[int32]
	Ms   int32
}

var spinK = kernel.Define("reliability_spin", func(g *kernel.Block, a *spinArgs) {
	var end time.Time
	if a.Ms >= 0 {
		end = time.Now().Add(time.Duration(a.Ms) * time.Millisecond)
	}
	released := func() bool { return a.Done != 0 && atomic.LoadInt32(a.Done.At(g, 0)) != 0 }
	for !g.Canceled() && (a.Ms < 0 && !released() || a.Ms >= 0 && time.Now().Before(end)) {
		time.Sleep(200 * time.Microsecond)
	}
	if a.Done != 0 && g.BlockIdx() == (kernel.Dim{}) {
		atomic.StoreInt32(a.Done.At(g, 0), 1)
	}
})

type panicArgs struct{ Code int32 }

var panicK = kernel.Define("reliability_panic", func(g *kernel.Block, a *panicArgs) {
	panic("reliability kernel panic " + strconv.Itoa(int(a.Code)))
})

// overrun writes V to x[0:N+Extra] through the checked Slice helper.
type overrunArgs struct {
	X     rocr.Ptr[uint32]
	N     int32
	Extra int32
	V     uint32
}

var overrunK = kernel.Define("reliability_overrun", func(g *kernel.Block, a *overrunArgs) {
	x := a.X.Slice(g, 0, int(a.N+a.Extra))
	for i := range x {
		x[i] = a.V
	}
})

// axpb sets x[i] = x[i]*A + B for i < N.
type axpbArgs struct {
	X    rocr.Ptr[uint32]
	A, B uint32
	N    int32
}

var axpbK = kernel.Define("reliability_axpb", func(g *kernel.Block, a *axpbArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] = x[i]*a.A + a.B
	}
})

// add sets dst[i] += src[i] for i < N.
type addArgs struct {
	Dst, Src rocr.Ptr[uint32]
	N        int32
}

var addK = kernel.Define("reliability_add", func(g *kernel.Block, a *addArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	d, s := a.Dst.Slice(g, lo, hi), a.Src.Slice(g, lo, hi)
	for i := range d {
		d[i] += s[i]
	}
})

// store sleeps Ms milliseconds, then sets x[I] = V (one work-item).
type storeArgs struct {
	X     rocr.Ptr[uint32]
	I     int32
	V     uint32
	Ms    int32
	Dummy int32
}

var storeK = kernel.Define("reliability_store", func(g *kernel.Block, a *storeArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	*a.X.At(g, int(a.I)) = a.V
})

// move sets x[Dst] = x[Src] (one work-item).
type moveArgs struct {
	X        rocr.Ptr[uint32]
	Dst, Src int32
}

var moveK = kernel.Define("reliability_move", func(g *kernel.Block, a *moveArgs) {
	*a.X.At(g, int(a.Dst)) = *a.X.At(g, int(a.Src))
})

type bufU32 = buffer.Buffer[uint32]

var testSet = kernel.NewSet("reliability", spinK, panicK, overrunK, axpbK, addK, storeK, moveK)

// The same kernels for cuda devices, from testdata/reliability.hip
// (testdata/gen.sh regenerates them; TestPTXUpToDate checks).
var (
	//go:embed testdata/reliability_sm90.ptx
	testPTXsm90 string
	//go:embed testdata/reliability_sm80.ptx
	testPTXsm80 string
)

// testLib is the test kernels in every form; module.Load picks the one for
// the device, and the Go set gives the PTX its argument types.
var testLib = module.Library{testSet, testPTXsm90, testPTXsm80}

// fixture is one test's runtime: cpu agents, or the devices of the driver
// HIPGO_RELIABILITY_DRIVER names (see openDriver).
type fixture struct {
	t      testing.TB
	driver string
	devs   []*gpu.Device
	dev    *gpu.Device
	lib    *kernels.Set
	mod    *module.Module
	fn     map[string]*module.Function
	mu     sync.Mutex
	mods   map[int]*module.Module
}

// open starts the runtime with n cpu agents; at the end of the test it
// shuts down and checks that every pool allocation was freed.
func open(t testing.TB, agents int, env ...string) *fixture {
	t.Helper()
	t.Setenv("HIPGO_DRIVER", "cpu")
	t.Setenv("HIPGO_CPU_AGENTS", strconv.Itoa(agents))
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	return start(t, "cpu")
}

// driverEnv names the driver that openDriver's tests (TestMisuse,
// TestStress) run on; cpu when unset, as in CI.
const driverEnv = "HIPGO_RELIABILITY_DRIVER"

// openDriver is open for the tests that can run on a GPU: on the cpu
// driver it opens agents cpu agents; on another it opens every device that
// driver has (perhaps fewer than agents: the tests then use several streams
// of one device, or skip what needs more). No such device skips t, or fails
// it where HIPGO_REQUIRE names the driver.
func openDriver(t testing.TB, agents int) *fixture {
	t.Helper()
	driver := testDriver()
	if driver == "cpu" {
		return open(t, agents)
	}
	t.Setenv("HIPGO_DRIVER", driver)
	return start(t, driver)
}

// testDriver is the driver HIPGO_RELIABILITY_DRIVER names, cpu if none.
func testDriver() string {
	if d := strings.TrimSpace(os.Getenv(driverEnv)); d != "" {
		return d
	}
	return "cpu"
}

// probeDriver skips t (or fails it, as openDriver does) when the driver
// of openDriver has no device, so that a test of many cases says so once.
func probeDriver(t *testing.T) {
	t.Helper()
	driver := testDriver()
	if driver == "cpu" {
		return
	}
	t.Setenv("HIPGO_DRIVER", driver)
	_, err := gpu.Devices()
	if serr := gpu.Shutdown(); serr != nil {
		t.Fatalf("gpu.Shutdown: %v", serr)
	}
	if err != nil {
		unavailable(t, driver, "%s=%s: no %s device: %v", driverEnv, driver, driver, err)
	}
}

// start opens the runtime on the driver HIPGO_DRIVER names and loads the
// kernel library and the test kernels on the first device.
func start(t testing.TB, driver string) *fixture {
	t.Helper()
	t.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			t.Errorf("gpu.Shutdown: %v", err)
		}
		if n := rocrhook.LiveAllocations(); n != 0 {
			t.Errorf("%d pool allocations outlive Shutdown", n)
		}
	})
	devs, err := gpu.Devices()
	if err != nil && driver != "cpu" {
		unavailable(t, driver, "%s=%s: no %s device: %v", driverEnv, driver, driver, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := devs[0].Properties().Driver; got != driver {
		t.Fatalf("device 0 is a %s device, want %s", got, driver)
	}
	f := &fixture{t: t, driver: driver, devs: devs, dev: devs[0], fn: map[string]*module.Function{}}
	if f.lib, err = kernels.Load(f.dev); err != nil {
		t.Fatal(err)
	}
	if f.mod, err = module.Load(f.dev, testLib); err != nil {
		t.Fatal(err)
	}
	for _, k := range testSet.Kernels {
		f.fn[k.Name()] = f.mod.MustFunction(k.Name())
	}
	return f
}

// unavailable skips t, or fails it where HIPGO_REQUIRE lists word.
func unavailable(t testing.TB, word, format string, args ...any) {
	t.Helper()
	testenv.Requiref(t, word, format, args...)
}

// gpuFault is why a case that makes a kernel fail skips on a GPU.
const gpuFault = "a GPU fault ends the context; see gpu.Shutdown (hipDeviceReset)"

// onCPU reports whether the fixture runs on cpu agents.
func (f *fixture) onCPU() bool { return f.driver == "cpu" }

// function0 is function for device ordinal i, loading each device's module
// once; safe from several goroutines.
func (f *fixture) function0(i int, name string) *module.Function {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mods == nil {
		f.mods = map[int]*module.Module{0: f.mod}
	}
	m, ok := f.mods[i]
	if !ok {
		var err error
		if m, err = module.Load(f.devs[i], testLib); err != nil {
			panic(err)
		}
		f.mods[i] = m
	}
	return m.MustFunction(name)
}

// function returns kernel name of the test set loaded on dev.
func (f *fixture) function(dev *gpu.Device, name string) *module.Function {
	f.t.Helper()
	if dev == f.dev {
		return f.fn[name]
	}
	m, err := module.Load(dev, testLib)
	if err != nil {
		f.t.Fatal(err)
	}
	return m.MustFunction(name)
}

func (f *fixture) stream(dev *gpu.Device) *stream.Stream {
	f.t.Helper()
	s, err := stream.New(dev)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) event(dev *gpu.Device) *stream.Event {
	f.t.Helper()
	ev, err := stream.NewEvent(dev, stream.EventDefault)
	if err != nil {
		f.t.Fatal(err)
	}
	return ev
}

func newBuf[T any](t testing.TB, dev *gpu.Device, n int) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.New[T](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newHost[T any](t testing.TB, dev *gpu.Device, n int) *buffer.Host[T] {
	t.Helper()
	h, err := buffer.NewHost[T](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func fromSlice[T any](t testing.TB, dev *gpu.Device, s []T) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.FromSlice(dev, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func iota32(n int, base uint32) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = base + uint32(i)
	}
	return out
}

// healthy proves that every device still runs new work correctly: a fresh
// stream, a fresh buffer, a kernel, a copy back.
func (f *fixture) healthy() {
	f.t.Helper()
	for _, dev := range f.devs {
		const n = 300
		b := fromSlice(f.t, dev, iota32(n, 1))
		s := f.stream(dev)
		if err := f.function(dev, "reliability_axpb").Launch(s, gpu.D1(gpu.Blocks(n, 64)), gpu.D1(64), 0, b, uint32(3), uint32(1), int32(n)); err != nil {
			f.t.Fatalf("%s no longer runs work: launch: %v", dev, err)
		}
		if err := s.Synchronize(); err != nil {
			f.t.Fatalf("%s no longer runs work: %v", dev, err)
		}
		got, err := b.ToSlice()
		if err != nil {
			f.t.Fatal(err)
		}
		for i, v := range got {
			if want := uint32(i+1)*3 + 1; v != want {
				f.t.Fatalf("%s: fresh work computed x[%d] = %d, want %d", dev, i, v, want)
			}
		}
		if err := s.Destroy(); err != nil {
			f.t.Fatal(err)
		}
		if err := b.Free(); err != nil {
			f.t.Fatal(err)
		}
	}
}

// wantErr checks err against a sentinel and the words its message must
// contain.
func wantErr(t testing.TB, err, sentinel error, words ...string) {
	t.Helper()
	if sentinel == nil {
		if err != nil {
			t.Errorf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Errorf("no error; want %v", sentinel)
		return
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %q is not %v", err, sentinel)
	}
	msg := err.Error()
	for _, w := range words {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not name %q", msg, w)
		}
	}
}
