package stream_test

import (
	"runtime"
	gosync "sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
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
