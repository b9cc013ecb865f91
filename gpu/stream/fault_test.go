package stream_test

import (
	"context"
	"fmt"
	"strings"
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// The call that waited for a failed kernel reports its failure; a later
// call on the stream, which did not fail itself, says the stream failed
// earlier, and the kernel's error stays underneath.
func TestStickyFailureSaysEarlier(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 4)
	e.launch(s, "test_panic")
	first := s.Synchronize()
	require.ErrorIs(t, first, gpu.ErrLaunchFailure)
	assert.Contains(t, first.Error(), "test_panic")
	assert.NotContains(t, first.Error(), "failed earlier", "the wait that saw the failure reports it as its own")

	earlier := fmt.Sprintf("stream %d failed earlier: ", (*core.Stream)(s).Queue().ID())
	for name, call := range map[string]func() error{
		"launch":      func() error { return e.tryLaunch(s, "stream_test_inc", x, int32(4)) },
		"memset":      func() error { return s.Memset(x, 1) },
		"record":      func() error { return s.Record(e.event(0)) },
		"synchronize": s.Synchronize,
		"query":       s.Query,
	} {
		err := call()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), earlier, name)
		assert.Contains(t, err.Error(), "test_panic", name)
		assert.ErrorIs(t, err, gpu.ErrLaunchFailure, name)
		assert.ErrorIs(t, err, first, "%s: errors.Is the original failure", name)
		var pe *cpu.PanicError
		assert.ErrorAs(t, err, &pe, name)
	}
	require.NoError(t, s.Destroy())
}

// runawayK never polls Canceled: it blocks until the test lets it go,
// then writes 7 to x[0] through the raw address, which faults if the
// memory was unmapped under it.
type runawayArgs struct{ X rocr.Ptr[int32] }

var (
	runawayGate = make(chan struct{})
	runawayK    = kernel.Define("stream_test_runaway", func(g *kernel.Block, a *runawayArgs) {
		<-runawayGate
		*(*int32)(hostmem.At(a.X.Addr())) = 7
	})
)

// runaways readies runawayK for a test and returns the function that
// lets every runaway kernel go (once). It runs at the test's end too,
// and waits for the abandoned kernels to return, so that none outlives
// the test.
func runaways(t *testing.T, e *env) (launch func(s *stream.Stream) *buffer.Buffer[int32], release func()) {
	t.Helper()
	gate := make(chan struct{})
	runawayGate = gate
	var once gosync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() {
		release()
		deadline := time.Now().Add(10 * time.Second)
		for cpu.Runaways() != 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		assert.Zero(t, cpu.Runaways(), "abandoned kernels still running after they were let go")
	})
	m, err := module.Load(e.dev, kernel.NewSet("runaway", runawayK))
	require.NoError(t, err)
	f := m.MustFunction("stream_test_runaway")
	launch = func(s *stream.Stream) *buffer.Buffer[int32] {
		x := newBuf(t, e.dev, 1)
		require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x))
		return x
	}
	return launch, release
}

// within runs call and returns its error, or fails the test after d,
// letting the runaway kernels go so that the test ends.
func within(t *testing.T, d time.Duration, release func(), call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		release()
		<-done
		t.Fatalf("the call did not return within %v of a runaway kernel", d)
		return nil
	}
}

// A Go kernel that never returns, on a stream with a kernel timeout, is
// abandoned past the timeout and the grace: its stream fails with a
// timeout error that says so, Synchronize returns, the packets behind it
// fail, and other streams run.
func TestRunawayKernelTimesOut(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_TIMEOUT", "30ms")
	t.Setenv("HIPGO_KERNEL_GRACE", "50ms")
	e := setup(t)
	launch, release := runaways(t, e)
	s := e.stream()
	launch(s)
	e.launch(s, "test_empty")
	start := time.Now()
	err := within(t, 10*time.Second, release, s.Synchronize)
	el := time.Since(start)
	require.ErrorIs(t, err, gpu.ErrLaunchTimeOut)
	assert.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Contains(t, err.Error(), "kernel stream_test_runaway ran past the queue's kernel timeout of 30ms and did not return within the 50ms grace")
	assert.Less(t, el, 5*time.Second)
	assert.Equal(t, 1, cpu.Runaways(), "the abandoned kernel still runs")

	s2 := e.stream()
	e.launch(s2, "test_empty")
	sync(t, s2)
	assert.NoError(t, within(t, 10*time.Second, release, s.Destroy), "a new processor serves the queue: Destroy has nothing to wait for")
}

// Without a kernel timeout a runaway kernel makes Synchronize wait, but
// Destroy waits a grace for it to move on, destroys the queue (which
// cancels it) and, a grace later, abandons it and says so.
func TestRunawayKernelDestroy(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_TIMEOUT", "")
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	launch, release := runaways(t, e)
	s := e.stream()
	x := launch(s)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, s.SynchronizeContext(ctx), gpu.ErrNotReady, "with no timeout the kernel runs on")

	start := time.Now()
	err := within(t, 10*time.Second, release, s.Destroy)
	el := time.Since(start)
	require.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Contains(t, err.Error(), "kernel stream_test_runaway still ran 100ms after the queue was destroyed and was abandoned")
	assert.GreaterOrEqual(t, el, 200*time.Millisecond, "two graces: one for the stream's work, one after the cancel")
	assert.Less(t, el, 5*time.Second)
	assert.Equal(t, 1, cpu.Runaways())

	// The kernel may still write its buffer: memory freed now is not
	// reused while it runs, and its late write lands in what it was given.
	addr := x.Ptr().Addr()
	require.NoError(t, x.Free())
	y := newBuf(t, e.dev, 1)
	assert.NotEqual(t, addr, y.Ptr().Addr(), "memory freed while an abandoned kernel runs was reused")
	release()
	deadline := time.Now().Add(10 * time.Second)
	for cpu.Runaways() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	got, err := y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{0}, got, "the abandoned kernel's late write landed in a new buffer")
}

// gpu.Shutdown with runaway kernels on the default stream and a user
// stream returns after the grace and reports both; the memory they touch
// stays mapped until they return (their late writes do not fault).
func TestRunawayKernelShutdown(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_TIMEOUT", "")
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	launch, release := runaways(t, e)
	def, err := stream.DefaultStream(e.dev)
	require.NoError(t, err)
	launch(def)
	launch(e.stream())
	start := time.Now()
	err = within(t, 10*time.Second, release, gpu.Shutdown)
	el := time.Since(start)
	require.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Equal(t, 2, strings.Count(err.Error(), "kernel stream_test_runaway still ran 100ms after the queue was destroyed and was abandoned"), "%v", err)
	assert.Less(t, el, 5*time.Second)
	assert.Equal(t, 2, cpu.Runaways())
	release()
	deadline := time.Now().Add(10 * time.Second)
	for cpu.Runaways() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.Zero(t, cpu.Runaways())
}

// panicSpinK panics in work-group 0 once another work-group runs (or a
// second passed); every other work-group blocks until the test lets it
// go, never polling Canceled.
var (
	spinning   atomic.Int32
	panicSpinK = kernel.Define("stream_test_panic_spin", func(g *kernel.Block, a *runawayArgs) {
		if g.BlockIdx().X == 0 {
			for i := 0; i < 1000 && spinning.Load() == 0; i++ {
				time.Sleep(time.Millisecond)
			}
			panic("work-group 0 gives up")
		}
		spinning.Add(1)
		<-runawayGate
	})
)

// One work-group panics while the others spin without polling Canceled:
// Synchronize returns the launch's failure a grace later, the spinning
// work-groups abandoned (the error says so), instead of waiting for them
// for ever; the stream's next work runs on a new processor.
func TestPanicWithSpinningGroupsAbandoned(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_TIMEOUT", "")
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	_, release := runaways(t, e)
	m, err := module.Load(e.dev, kernel.NewSet("panic-spin", panicSpinK))
	require.NoError(t, err)
	s := e.stream()
	x := newBuf(t, e.dev, 1)
	spinning.Store(0)
	require.NoError(t, m.MustFunction("stream_test_panic_spin").Launch(s, gpu.D1(8), gpu.D1(1), 0, x))
	err = within(t, 10*time.Second, release, s.Synchronize)
	require.Error(t, err)
	assert.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Contains(t, err.Error(), "work-group 0 gives up")
	assert.Contains(t, err.Error(), "stream_test_panic_spin")
	assert.Contains(t, err.Error(), "abandoned")
	release()
	require.NoError(t, within(t, 10*time.Second, release, s.Destroy))
}

// A host function that never returns (one that waits for a peer that
// never comes, as a collective's does) does not hold Destroy or Shutdown
// for ever: a grace after the queue is destroyed, it is abandoned, and
// the error says so; the stream's later work fails, and other streams
// run.
func TestBlockedHostFuncAbandonedByDestroy(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	gate := make(chan struct{})
	defer close(gate)
	returned := make(chan struct{})
	s := e.stream()
	require.NoError(t, s.LaunchHostFunc(func() error { <-gate; close(returned); return nil }))
	e.launch(s, "test_empty")
	err := returnsWithin(t, 10*time.Second, s.Destroy)
	require.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Contains(t, err.Error(), "host function")

	s2 := e.stream()
	e.launch(s2, "test_empty")
	sync(t, s2)
	select {
	case <-returned:
		t.Fatal("the host function returned before it was let go")
	default:
	}
}

func TestBlockedHostFuncAbandonedByShutdown(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	gate := make(chan struct{})
	defer close(gate)
	s := e.stream()
	started := make(chan struct{}, 2)
	require.NoError(t, s.LaunchHostFunc(func() error { started <- struct{}{}; <-gate; return nil }))
	def, err := stream.DefaultStream(e.dev)
	require.NoError(t, err)
	require.NoError(t, def.LaunchHostFunc(func() error { started <- struct{}{}; <-gate; return nil }))
	<-started
	<-started // both run: Shutdown abandons them, it does not drain them
	err = returnsWithin(t, 10*time.Second, gpu.Shutdown)
	require.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Equal(t, 2, strings.Count(err.Error(), "host function"), "%v", err)
}

// returnsWithin runs call and returns its error, or fails the test at
// once after d, leaving call blocked.
func returnsWithin(t *testing.T, d time.Duration, call func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- call() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("the call did not return within %v", d)
		return nil
	}
}

// Device.Reset with a host function that never returns on one of the
// device's streams returns a grace later and says what it abandoned.
func TestBlockedHostFuncAbandonedByReset(t *testing.T) {
	t.Setenv("HIPGO_KERNEL_GRACE", "100ms")
	e := setup(t)
	gate := make(chan struct{})
	defer close(gate)
	s := e.stream()
	started := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { close(started); <-gate; return nil }))
	<-started
	err := returnsWithin(t, 10*time.Second, e.dev.Reset)
	require.ErrorIs(t, err, hsa.ErrAbandoned)
	assert.Contains(t, err.Error(), "host function")
}
