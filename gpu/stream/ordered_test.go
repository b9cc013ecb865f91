package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// queued is how many packets s's queue has taken so far.
func queued(s *stream.Stream) uint64 { return (*core.Stream)(s).Queue().LoadWriteIndex() }

// A wait for an event the stream already waits for, or for a record of
// its own, queues no packet; the work after it still runs after what the
// event follows, and Synchronize still waits for it.
func TestWaitEventAlreadyOrdered(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	defer func() { require.NoError(t, a.Destroy()); require.NoError(t, b.Destroy()) }()
	x, y := newBuf(t, e.dev, 4), newBuf(t, e.dev, 4)
	defer func() { _ = x.Free(); _ = y.Free() }()
	slow, err := e.mod.Function("stream_test_slow_write")
	require.NoError(t, err)
	cp, err := e.mod.Function("stream_test_copy")
	require.NoError(t, err)
	ev, own := e.event(stream.EventDisableTiming), e.event(stream.EventDisableTiming)
	defer func() { require.NoError(t, ev.Destroy()); require.NoError(t, own.Destroy()) }()
	(*core.Stream)(b).SetOrder(core.Manual) // the events alone order the streams

	require.NoError(t, slow.Launch(a, gpu.D1(1), gpu.D1(1), 0, x, int32(7), int32(30), int32(4)))
	require.NoError(t, a.Record(ev))
	n := queued(b)
	require.NoError(t, b.WaitEvent(ev))
	assert.Equal(t, n+1, queued(b), "the first wait is a barrier")
	require.NoError(t, b.WaitEvent(ev))
	assert.Equal(t, n+1, queued(b), "a second wait for the same record queued a packet")
	require.NoError(t, b.Record(own))
	n = queued(b)
	require.NoError(t, b.WaitEvent(own))
	assert.Equal(t, n, queued(b), "a wait for the stream's own record queued a packet")
	require.NoError(t, cp.Launch(b, gpu.D1(1), gpu.D1(1), 0, y, x, int32(4)))
	require.NoError(t, b.Synchronize())
	got := make([]int32, 4)
	require.NoError(t, y.CopyTo(got))
	assert.Equal(t, []int32{7, 7, 7, 7}, got, "the copy ran before the write its event follows")
	require.NoError(t, ev.Query())
}

// A buffer written on one stream and read by several launches on
// another: the first read waits for the writer with a barrier, the later
// ones are behind that barrier already and queue none.
func TestAutomaticDependencyWaitedOnce(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	defer func() { require.NoError(t, a.Destroy()); require.NoError(t, b.Destroy()) }()
	x, y, z := newBuf(t, e.dev, 4), newBuf(t, e.dev, 4), newBuf(t, e.dev, 4)
	defer func() { _ = x.Free(); _ = y.Free(); _ = z.Free() }()
	for round := int32(1); round <= 3; round++ {
		e.launch(a, "stream_test_slow_write", x, round, int32(20), int32(4))
		n := queued(b)
		e.launch(b, "stream_test_slow_read", y, x, int32(0), int32(4))
		assert.Equal(t, n+2, queued(b), "round %d: the first read is a barrier and the dispatch", round)
		e.launch(b, "stream_test_slow_read", z, x, int32(0), int32(4))
		assert.Equal(t, n+3, queued(b), "round %d: the second read queued a barrier again", round)
		require.NoError(t, b.Synchronize())
		gy, gz := make([]int32, 4), make([]int32, 4)
		require.NoError(t, y.CopyTo(gy))
		require.NoError(t, z.CopyTo(gz))
		want := []int32{round, round, round, round}
		assert.Equal(t, want, gy, "round %d: the first read ran before the write", round)
		assert.Equal(t, want, gz, "round %d: the second read ran before the write", round)
	}
	require.NoError(t, a.Synchronize())
}
