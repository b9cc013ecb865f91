package stream_test

import (
	"errors"
	gosync "sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// A kernel on one stream, an event recorded after it, another stream
// waiting for the event and reading what the kernel wrote: round after
// round, the reader sees every write before it. The fences of each round
// cross from one stream's cache to the other's (the waiter releases the
// recorder's fences), which the caches move back through the shared pool
// in batches.
func TestRecordWaitRounds(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	defer func() { require.NoError(t, a.Destroy()); require.NoError(t, b.Destroy()) }()
	x, y := newBuf(t, e.dev, 1), newBuf(t, e.dev, 1)
	defer func() { _ = x.Free(); _ = y.Free() }()
	require.NoError(t, x.Fill(0))
	inc, err := e.mod.Function("stream_test_inc")
	require.NoError(t, err)
	cp, err := e.mod.Function("stream_test_copy")
	require.NoError(t, err)
	ev := e.event(stream.EventDisableTiming)
	defer func() { require.NoError(t, ev.Destroy()) }()
	rounds := 300
	if raceflag.Enabled {
		rounds = 60
	}
	got := make([]int32, 1)
	for i := range rounds {
		require.NoError(t, inc.Launch(a, gpu.D1(1), gpu.D1(1), 0, x, int32(1)))
		require.NoError(t, a.Record(ev))
		require.NoError(t, b.WaitEvent(ev))
		require.NoError(t, cp.Launch(b, gpu.D1(1), gpu.D1(1), 0, y, x, int32(1)))
		require.NoError(t, b.Synchronize())
		require.NoError(t, y.CopyTo(got))
		require.Equal(t, int32(i+1), got[0], "round %d: the wait let the read run before the write", i)
		if i%7 == 0 {
			require.NoError(t, ev.Synchronize())
			require.NoError(t, ev.Query(), "round %d: the event is pending after the stream that waited for it finished", i)
		}
	}
	require.NoError(t, a.Synchronize())
}

// Records, waits, synchronizes and queries race the event's and the
// streams' destruction: every call returns nil or says that what it was
// given was destroyed; none panics or hangs.
func TestRecordWaitSynchronizeRaceDestroy(t *testing.T) {
	e := setup(t)
	f, err := e.mod.Function("stream_test_inc")
	require.NoError(t, err)
	x := newBuf(t, e.dev, 1)
	defer func() { _ = x.Free() }()
	rounds := 20
	if raceflag.Enabled {
		rounds = 6
	}
	destroyed := func(err error) bool {
		return err == nil || errors.Is(err, gpu.ErrInvalidHandle)
	}
	for r := range rounds {
		a, b := e.stream(), e.stream()
		ev := e.event(stream.EventDisableTiming)
		var wg gosync.WaitGroup
		errs := make(chan error, 64)
		loop := func(step func() error) {
			wg.Go(func() {
				for range 50 {
					if err := step(); !destroyed(err) {
						errs <- err
						return
					}
				}
			})
		}
		loop(func() error {
			if err := f.Launch(a, gpu.D1(1), gpu.D1(1), 0, x, int32(1)); err != nil {
				return err
			}
			return a.Record(ev)
		})
		loop(func() error {
			if err := b.WaitEvent(ev); err != nil {
				return err
			}
			if err := f.Launch(b, gpu.D1(1), gpu.D1(1), 0, x, int32(1)); err != nil {
				return err
			}
			return b.Synchronize()
		})
		loop(func() error {
			if err := ev.Synchronize(); err != nil {
				return err
			}
			if err := ev.Query(); err != nil && !errors.Is(err, gpu.ErrNotReady) {
				return err
			}
			return nil
		})
		loop(a.Synchronize)
		switch r % 3 { // a different one goes first each round
		case 0:
			assert.NoError(t, ev.Destroy())
			assert.NoError(t, a.Destroy())
			assert.NoError(t, b.Destroy())
		case 1:
			assert.NoError(t, a.Destroy())
			assert.NoError(t, ev.Destroy())
			assert.NoError(t, b.Destroy())
		default:
			assert.NoError(t, b.Destroy())
			assert.NoError(t, a.Destroy())
			assert.NoError(t, ev.Destroy())
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", r, err)
		}
	}
}
