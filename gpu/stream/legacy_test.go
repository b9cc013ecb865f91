package stream_test

import (
	"errors"
	gosync "sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// legacyEnv is a test's blocking stream, non-blocking stream and legacy
// stream, with buffers of their own so that no buffer orders them.
func legacyStreams(t *testing.T, e *env) (blocking, nonBlocking, legacy *stream.Stream) {
	t.Helper()
	blocking = e.stream()
	nonBlocking, err := stream.NewWithFlags(e.dev, stream.NonBlocking, stream.PriorityLow)
	require.NoError(t, err)
	legacy, err = stream.Legacy(e.dev)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, blocking.Destroy())
		assert.NoError(t, nonBlocking.Destroy())
	})
	return blocking, nonBlocking, legacy
}

// Work on the legacy stream waits for earlier work of a blocking stream,
// including work queued before the legacy stream existed; a non-blocking
// stream's work does not wait, and an event recorded on the legacy stream
// marks the end of the blocking stream's work.
func TestLegacyWaitsForBlockingStreams(t *testing.T) {
	e := setup(t)
	x, y, z := newBuf(t, e.dev, 4), newBuf(t, e.dev, 4), newBuf(t, e.dev, 4)
	open := closeGate(t)
	s := e.stream()
	t.Cleanup(func() { assert.NoError(t, s.Destroy()) })
	e.launch(s, "stream_test_gated_write", x, int32(5), int32(4)) // before Legacy is made
	b, nb, leg := legacyStreams(t, e)
	assert.True(t, leg.IsLegacy())
	assert.False(t, b.IsLegacy())
	e.launch(leg, "stream_test_inc", y, int32(4))
	ev := e.event(0)
	require.NoError(t, leg.Record(ev))

	// The non-blocking stream runs while the gate holds the rest.
	e.launch(nb, "stream_test_inc", z, int32(4))
	require.NoError(t, nb.Synchronize())
	assert.ErrorIs(t, leg.Query(), gpu.ErrNotReady, "legacy work ran before the blocking stream's gated kernel")
	assert.ErrorIs(t, ev.Query(), gpu.ErrNotReady, "an event on the legacy stream completed before a blocking stream's work")
	// A blocking stream's later work waits for the legacy work, and so for
	// the gate, although it shares nothing with either.
	e.launch(b, "stream_test_inc", z, int32(4))
	assert.ErrorIs(t, b.Query(), gpu.ErrNotReady)

	open()
	require.NoError(t, ev.Synchronize())
	got, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{5, 5, 5, 5}, got, "the event completed before the gated kernel wrote")
	require.NoError(t, b.Synchronize())
	got, err = z.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{2, 2, 2, 2}, got)
	require.NoError(t, leg.Synchronize())
}

// Work queued on a blocking stream after legacy work waits for it; a
// non-blocking stream's does not, and neither does work queued before.
func TestBlockingStreamsWaitForLegacy(t *testing.T) {
	e := setup(t)
	x, y, z := newBuf(t, e.dev, 4), newBuf(t, e.dev, 4), newBuf(t, e.dev, 4)
	b, nb, leg := legacyStreams(t, e)
	e.launch(b, "stream_test_inc", y, int32(4))
	require.NoError(t, b.Synchronize())
	def, err := stream.DefaultStream(e.dev)
	require.NoError(t, err)

	open := closeGate(t)
	e.launch(leg, "stream_test_gated_write", x, int32(9), int32(4))
	for _, s := range []*stream.Stream{b, def} {
		e.launch(s, "stream_test_inc", y, int32(4))
	}
	ev := e.event(0)
	require.NoError(t, b.Record(ev))
	e.launch(nb, "stream_test_inc", z, int32(4))
	require.NoError(t, nb.Synchronize(), "a non-blocking stream waited for the legacy stream")
	for _, s := range []*stream.Stream{b, def} {
		assert.ErrorIs(t, s.Query(), gpu.ErrNotReady, "a blocking stream's work ran before the legacy stream's gated kernel")
	}
	assert.ErrorIs(t, ev.Query(), gpu.ErrNotReady)

	open()
	require.NoError(t, b.Synchronize())
	require.NoError(t, def.Synchronize())
	got, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{9, 9, 9, 9}, got)
	got, err = y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{3, 3, 3, 3}, got)
}

// Blocking streams that share nothing stay concurrent with each other
// while a legacy stream exists; only the legacy stream orders them.
func TestLegacyKeepsBlockingStreamsConcurrent(t *testing.T) {
	e := setup(t)
	_, err := stream.Legacy(e.dev)
	require.NoError(t, err)
	arrived.Store(0)
	a, b := e.stream(), e.stream()
	t.Cleanup(func() { assert.NoError(t, a.Destroy()); assert.NoError(t, b.Destroy()) })
	e.launch(a, "stream_test_rendezvous", int32(0))
	e.launch(b, "stream_test_rendezvous", int32(1))
	sync(t, a)
	sync(t, b)
	assert.True(t, met[0].Load() && met[1].Load(), "blocking streams serialized once a legacy stream existed")
}

// The legacy stream is not destroyed by Destroy, and is one per device.
func TestLegacyStreamIdentity(t *testing.T) {
	e := setup(t)
	a, err := stream.Legacy(e.dev)
	require.NoError(t, err)
	b, err := stream.Legacy(e.dev)
	require.NoError(t, err)
	assert.Same(t, a, b)
	def, err := stream.DefaultStream(e.dev)
	require.NoError(t, err)
	assert.NotSame(t, a, def, "the default stream is the per-thread one, not the legacy one")
	assert.False(t, def.IsLegacy())
	assert.ErrorIs(t, a.Destroy(), gpu.ErrInvalidHandle)
	assert.Equal(t, stream.Default, a.Flags())
	var nilStream *stream.Stream
	assert.False(t, nilStream.IsLegacy())
	_, err = stream.Legacy(nil)
	assert.Error(t, err)
}

// Legacy and blocking submissions, Synchronize, Query and Destroy race;
// every stream's work ends, nothing deadlocks, and the legacy stream's
// last event covers every blocking stream's work that came before it.
func TestLegacyRaces(t *testing.T) {
	e := setup(t)
	leg, err := stream.Legacy(e.dev)
	require.NoError(t, err)
	const workers, rounds = 4, 30
	var wg gosync.WaitGroup
	errs := make(chan error, 64)
	report := func(err error) {
		if err != nil {
			select {
			case errs <- err:
			default:
			}
		}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := newBuf(t, e.dev, 4)
			defer func() { report(x.Free()) }()
			for r := 0; r < rounds; r++ {
				flags := stream.Default
				if r%3 == 0 {
					flags = stream.NonBlocking
				}
				s, err := stream.NewWithFlags(e.dev, flags, stream.PriorityLow)
				if err != nil {
					report(err)
					return
				}
				report(e.tryLaunch(s, "stream_test_inc", x, int32(4)))
				_ = s.Query()
				if r%2 == 0 {
					report(s.Synchronize())
				}
				report(s.Destroy())
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		y := newBuf(t, e.dev, 4)
		defer func() { report(y.Free()) }()
		ev := e.event(0)
		defer func() { report(ev.Destroy()) }()
		for r := 0; r < rounds; r++ {
			report(e.tryLaunch(leg, "stream_test_inc", y, int32(4)))
			report(leg.Record(ev))
			_ = leg.Query()
			if r%5 == 0 {
				report(e.dev.Synchronize())
			}
		}
		report(ev.Synchronize())
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	require.NoError(t, leg.Synchronize())
}

// gpu.Shutdown while the legacy stream and blocking streams have work
// in flight ends them all; later calls say the runtime is shut down.
func TestLegacyShutdownRace(t *testing.T) {
	e := setup(t)
	leg, err := stream.Legacy(e.dev)
	require.NoError(t, err)
	s := e.stream()
	x, y := newBuf(t, e.dev, 4), newBuf(t, e.dev, 4)
	var wg gosync.WaitGroup
	for _, st := range []struct {
		s *stream.Stream
		b any
	}{{leg, x}, {s, y}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if err := e.tryLaunch(st.s, "stream_test_inc", st.b, int32(4)); err != nil {
					if !errors.Is(err, gpu.ErrContextIsDestroyed) && !errors.Is(err, gpu.ErrInvalidHandle) {
						t.Errorf("launch racing Shutdown: %v", err)
					}
					return
				}
			}
		}()
	}
	require.NoError(t, gpu.Shutdown())
	wg.Wait()
	assert.ErrorIs(t, e.tryLaunch(leg, "stream_test_inc", x, int32(4)), gpu.ErrContextIsDestroyed)
	assert.NoError(t, s.Destroy())
	_ = x.Free()
	_ = y.Free()
}
