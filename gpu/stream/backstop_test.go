package stream_test

import (
	"runtime"
	gosync "sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
)

// settle lets the backstop release what earlier tests dropped, so that a
// test can count its own releases.
func settle() {
	for range 10 {
		runtime.GC()
		core.WaitBackstops()
		runtime.Gosched()
	}
}

// An event dropped undestroyed, recorded and waited for by another
// stream, is released by the backstop and counted; the stream that
// waits for it still orders after the work it marks.
func TestBackstopReleasesDroppedEvent(t *testing.T) {
	dev := cputest.Device(t)
	a, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, a.Destroy()) }()
	b, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, b.Destroy()) }()
	var order []string
	var mu gosync.Mutex
	note := func(s string) func() error {
		return func() error { mu.Lock(); order = append(order, s); mu.Unlock(); return nil }
	}
	gate := make(chan struct{})
	settle()
	before := core.Backstops()
	func() {
		ev, err := stream.NewEvent(dev, stream.EventDisableTiming)
		require.NoError(t, err)
		require.NoError(t, a.LaunchHostFunc(func() error { <-gate; return nil }))
		require.NoError(t, a.LaunchHostFunc(note("a")))
		require.NoError(t, a.Record(ev))
		require.NoError(t, b.WaitEvent(ev))
		require.NoError(t, b.LaunchHostFunc(note("b")))
	}()
	ok := gputest.Collect(func() bool { return core.Backstops() > before })
	require.True(t, ok, "the dropped event was not released")
	assert.Equal(t, before+1, core.Backstops())
	close(gate)
	require.NoError(t, b.Synchronize())
	require.NoError(t, a.Synchronize())
	assert.Equal(t, []string{"a", "b"}, order, "the wait outlived the dropped event")
}

// A destroyed event is not released again by the backstop.
func TestBackstopSkipsDestroyedEvent(t *testing.T) {
	dev := cputest.Device(t)
	settle()
	before := core.Backstops()
	func() {
		ev, err := stream.NewEvent(dev, stream.EventDefault)
		require.NoError(t, err)
		require.NoError(t, ev.Destroy())
	}()
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "Destroy left the backstop armed")
}

// Events dropped while others are destroyed explicitly and the runtime
// shuts down: each dropped one is released once, nothing is released
// twice, and nothing races.
func TestBackstopRacesShutdownAndDestroy(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer runtime.KeepAlive(s) // undestroyed: its own backstop would count
	const n = 16
	kept := make([]*stream.Event, n)
	for i := range kept {
		kept[i], err = stream.NewEvent(dev, stream.EventDisableTiming)
		require.NoError(t, err)
		require.NoError(t, s.Record(kept[i]))
	}
	settle()
	before := core.Backstops()
	func() {
		for range n {
			ev, err := stream.NewEvent(dev, stream.EventDisableTiming)
			require.NoError(t, err)
			require.NoError(t, s.Record(ev))
		}
	}()
	var wg gosync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); gputest.Collect(func() bool { return core.Backstops() >= before+n }) }()
	go func() {
		defer wg.Done()
		for _, ev := range kept {
			assert.NoError(t, ev.Destroy())
		}
	}()
	go func() { defer wg.Done(); assert.NoError(t, gpu.Shutdown()) }()
	wg.Wait()
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() >= before+n }))
	assert.Equal(t, before+n, core.Backstops(), "a destroyed event was released again")
}

// gcRounds runs the garbage collector a few times without waiting for
// the backstop releases it starts: they may wait for work a test holds
// up.
func gcRounds() {
	for range 10 {
		runtime.GC()
		runtime.Gosched()
	}
}

// dropStream makes a stream, queues a host function that waits for gate
// and one that sets ran, and drops it; it returns the stream's queue,
// which does not keep the stream reachable.
func dropStream(t *testing.T, dev *gpu.Device, flags stream.Flags, gate <-chan struct{}, ran *atomic.Bool) *rocr.Queue {
	t.Helper()
	s, err := stream.NewWithFlags(dev, flags, stream.PriorityLow)
	require.NoError(t, err)
	require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
	require.NoError(t, s.LaunchHostFunc(func() error { ran.Store(true); return nil }))
	return (*core.Stream)(s).Queue()
}

// A stream dropped undestroyed with work pending is destroyed by the
// backstop only once that work completed, and counted.
func TestBackstopDestroysDroppedStream(t *testing.T) {
	dev := cputest.Device(t)
	settle()
	before := core.Backstops()
	gate := make(chan struct{})
	var ran atomic.Bool
	q := dropStream(t, dev, stream.Default, gate, &ran)
	gcRounds()
	assert.False(t, q.Destroyed(), "the dropped stream was destroyed under its pending work")
	assert.Equal(t, before, core.Backstops(), "the dropped stream was counted before its work completed")
	close(gate)
	ok := gputest.Collect(func() bool { return core.Backstops() > before })
	require.True(t, ok, "the dropped stream was not released")
	assert.True(t, ran.Load(), "the dropped stream's work did not run")
	assert.True(t, q.Destroyed(), "the dropped stream's queue outlived it")
	assert.Equal(t, before+1, core.Backstops())
}

// A stream the program still holds is never released by the backstop,
// and one it destroyed is not released again.
func TestBackstopKeepsReachableStream(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	settle()
	before := core.Backstops()
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "a reachable stream was released")
	var ran atomic.Bool
	require.NoError(t, s.LaunchHostFunc(func() error { ran.Store(true); return nil }))
	require.NoError(t, s.Synchronize())
	assert.True(t, ran.Load())
	require.NoError(t, s.Destroy())
	s = nil
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "Destroy left the backstop armed")
}

// A dropped blocking stream's pending work still counts: Device.Synchronize
// waits for it, and the legacy stream's work runs after it.
func TestBackstopDroppedStreamStillOrders(t *testing.T) {
	dev := cputest.Device(t)
	legacy, err := stream.Legacy(dev)
	require.NoError(t, err)
	settle()
	before := core.Backstops()
	gate := make(chan struct{})
	var ran, after atomic.Bool
	dropStream(t, dev, stream.Default, gate, &ran)
	gcRounds()
	require.NoError(t, legacy.LaunchHostFunc(func() error { after.Store(ran.Load()); return nil }))
	done := make(chan error, 1)
	go func() { done <- dev.Synchronize() }()
	gcRounds()
	select {
	case <-done:
		t.Fatal("Device.Synchronize returned before the dropped stream's work")
	default:
	}
	close(gate)
	require.NoError(t, <-done)
	assert.True(t, ran.Load(), "Device.Synchronize did not wait for the dropped stream")
	assert.True(t, after.Load(), "the legacy stream did not wait for the dropped stream")
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() > before }), "the dropped stream was not released")
}

// Streams dropped with work pending while Device.Synchronize and
// Shutdown run: each is released once, Synchronize and Shutdown return,
// and nothing races.
func TestBackstopStreamsRaceSynchronizeAndShutdown(t *testing.T) {
	dev := cputest.Device(t)
	settle()
	before := core.Backstops()
	const n = 8
	gate := make(chan struct{})
	var ran [n]atomic.Bool
	for i := range n {
		flags := stream.Default
		if i%2 == 1 {
			flags = stream.NonBlocking
		}
		dropStream(t, dev, flags, gate, &ran[i])
	}
	var wg gosync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); gcRounds() }()
	go func() { defer wg.Done(); _ = dev.Synchronize() }()
	go func() { defer wg.Done(); close(gate) }()
	go func() { defer wg.Done(); gcRounds(); assert.NoError(t, gpu.Shutdown()) }()
	wg.Wait()
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() >= before+n }), "the dropped streams were not released")
	assert.Equal(t, before+n, core.Backstops(), "a stream was released twice")
}

// Streams dropped with work pending while the device is reset and other
// streams are destroyed: each dropped one is released once, and nothing
// races.
func TestBackstopStreamsRaceResetAndDestroy(t *testing.T) {
	dev := cputest.Device(t)
	const n = 8
	kept := make([]*stream.Stream, n)
	for i := range kept {
		var err error
		kept[i], err = stream.New(dev)
		require.NoError(t, err)
	}
	settle()
	before := core.Backstops()
	gate := make(chan struct{})
	var ran [n]atomic.Bool
	for i := range n {
		dropStream(t, dev, stream.Default, gate, &ran[i])
	}
	var wg gosync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); gcRounds() }()
	go func() { defer wg.Done(); close(gate) }()
	go func() { defer wg.Done(); _ = dev.Reset() }()
	go func() {
		defer wg.Done()
		for _, s := range kept {
			_ = s.Destroy() // made before the reset, if it came first: an error, destroyed all the same
		}
	}()
	wg.Wait()
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() >= before+n }), "the dropped streams were not released")
	assert.Equal(t, before+n, core.Backstops(), "a stream was released twice")
}
