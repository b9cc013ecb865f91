package stream_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Every test runs on the cpu agent, and no goroutine may outlive
// gpu.Shutdown: the packet processors, the worker pool and any helper of
// a wait must all be gone when the tests end.
func TestMain(m *testing.M) { testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu")) }

// Test kernels. Each runs as one work-group unless said otherwise.

// slowWrite sleeps, then sets x[0:n] to v.
type slowWriteArgs struct {
	X  rocr.Ptr[int32]
	V  int32
	Ms int32
	N  int32
}

var slowWriteK = kernel.Define("stream_test_slow_write", func(g *kernel.Block, a *slowWriteArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i] = a.V
	}
})

// copyK copies src to dst, n elements, one work-group.
type copyArgs struct {
	Dst, Src rocr.Ptr[int32]
	N        int32
}

var copyK = kernel.Define("stream_test_copy", func(g *kernel.Block, a *copyArgs) {
	copy(a.Dst.Slice(g, 0, int(a.N)), a.Src.Slice(g, 0, int(a.N)))
})

// incK adds 1 to x[0:n] (work-group 0 does it all).
type incArgs struct {
	X rocr.Ptr[int32]
	N int32
}

var incK = kernel.Define("stream_test_inc", func(g *kernel.Block, a *incArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i]++
	}
})

// Flags that kernels set and read outside any buffer, so a test can order
// two streams by an event alone, without the automatic dependency that a
// shared buffer would add.
var flags [16]atomic.Int32

type flagSetArgs struct {
	I  int32
	Ms int32
}

var flagSetK = kernel.Define("stream_test_flag_set", func(g *kernel.Block, a *flagSetArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	flags[a.I].Store(1)
})

type flagGetArgs struct {
	Out rocr.Ptr[int32]
	N   int32
}

var flagGetK = kernel.Define("stream_test_flag_get", func(g *kernel.Block, a *flagGetArgs) {
	out := a.Out.Slice(g, 0, int(a.N))
	for i := range out {
		out[i] = flags[i].Load()
	}
})

func resetFlags() {
	for i := range flags {
		flags[i].Store(0)
	}
}

// rendezvous: kernel I arrives and waits (up to 5 s) until the other has
// arrived too; met[I] says whether it saw the other. Two of them finish
// together only if their streams run concurrently.
var (
	arrived atomic.Int32
	met     [2]atomic.Bool
)

type rendezvousArgs struct{ I int32 }

var rendezvousK = kernel.Define("stream_test_rendezvous", func(g *kernel.Block, a *rendezvousArgs) {
	arrived.Add(1)
	deadline := time.Now().Add(5 * time.Second)
	for arrived.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	met[a.I].Store(arrived.Load() >= 2)
})

// gatedWrite waits until the test opens the gate (giving up after 10 s, so
// a test that never opens it fails instead of hanging), then sets x[0:n]
// to v: a kernel that is pending for exactly as long as the test says.
var gate atomic.Pointer[chan struct{}]

type gatedWriteArgs struct {
	X rocr.Ptr[int32]
	V int32
	N int32
}

var gatedWriteK = kernel.Define("stream_test_gated_write", func(g *kernel.Block, a *gatedWriteArgs) {
	select {
	case <-*gate.Load():
	case <-time.After(10 * time.Second):
	}
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i] = a.V
	}
})

// closeGate sets a fresh, closed gate for stream_test_gated_write and
// returns the call that opens it; the test's end opens it too.
func closeGate(t testing.TB) (open func()) {
	ch := make(chan struct{})
	gate.Store(&ch)
	var opened atomic.Bool
	open = func() {
		if opened.CompareAndSwap(false, true) {
			close(ch)
		}
	}
	t.Cleanup(open)
	return open
}

var kernelSet = kernel.NewSet("stream-test", cputest.Sleep, cputest.Empty, slowWriteK, copyK, incK, cputest.Panic, flagSetK, flagGetK, rendezvousK, cputest.Overrun, slowReadK, gatedWriteK, read8K, initArrayK)

// env is one test's runtime: the default device and the test kernels.
type env struct {
	t   testing.TB
	dev *gpu.Device
	mod *module.Module
}

func setup(t testing.TB) *env {
	t.Helper()
	dev := cputest.Device(t)
	mod, err := module.Load(dev, kernelSet)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, dev: dev, mod: mod}
}

func (e *env) stream() *stream.Stream {
	e.t.Helper()
	s, err := stream.New(e.dev)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func (e *env) event(flags stream.EventFlags) *stream.Event {
	e.t.Helper()
	ev, err := stream.NewEvent(e.dev, flags)
	if err != nil {
		e.t.Fatal(err)
	}
	return ev
}

// launch launches kernel name as one work-group of one work-item.
func (e *env) launch(s *stream.Stream, name string, args ...any) {
	e.t.Helper()
	if err := e.tryLaunch(s, name, args...); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) tryLaunch(s *stream.Stream, name string, args ...any) error {
	f, err := e.mod.Function(name)
	if err != nil {
		return err
	}
	return f.Launch(s, gpu.D1(1), gpu.D1(1), 0, args...)
}

func newBuf(t testing.TB, dev *gpu.Device, n int) *buffer.Buffer[int32] {
	t.Helper()
	b, err := buffer.New[int32](dev, n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sync(t testing.TB, s *stream.Stream) {
	t.Helper()
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

// written reports the number of packets submitted to s's queue so far.
func written(s *stream.Stream) uint64 { return (*core.Stream)(s).Queue().LoadWriteIndex() }
