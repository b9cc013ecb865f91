package core

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/aql"
)

// Packets of one queue run in submission order, host callbacks and
// dispatches alike, through many turns of a small queue and of the
// in-flight ring; with no buffer shared across streams there is one
// packet per operation and no barrier.
func TestSubmitOrderOneQueue(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 8)
	var host runLog
	kernelLog.take()
	const n = 200
	for i := range n {
		if i%2 == 0 {
			require.NoError(t, hostOp(s, func() error { host.add(i); return nil }))
		} else {
			require.NoError(t, launch(s, kernelTag, &tagArgs{Tag: int64(i)}))
		}
	}
	require.NoError(t, s.Synchronize())
	assert.Equal(t, uint64(n), s.Queue().LoadWriteIndex(), "packets written")
	var want []int
	for i := 0; i < n; i += 2 {
		want = append(want, i)
	}
	assert.Equal(t, want, host.take(), "host callbacks, in order")
	for i := range want {
		want[i]++
	}
	assert.Equal(t, want, kernelLog.take(), "dispatches, in order")
}

// A submitter that finds the queue and the ring of in-flight packets full
// waits for room; nothing is lost or reordered once the head completes.
func TestSubmitWaitsForRoom(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 2) // the cpu agent's smallest queue; a ring of 4
	g := newGate(t)
	var got runLog
	gated(t, s, g, func() { got.add(0) })
	const n = 16
	done := make(chan error, 1)
	go func() {
		for i := 1; i <= n; i++ {
			if err := hostOp(s, func() error { got.add(i); return nil }); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	// Query does not wait behind a submitter that waits for room.
	assert.ErrorIs(t, s.Query(), gpu.ErrNotReady)
	select {
	case err := <-done:
		t.Fatalf("%d packets submitted to a queue of 2 whose head cannot complete (%v)", n, err)
	default:
	}
	g.open()
	require.NoError(t, <-done)
	require.NoError(t, s.Synchronize())
	want := make([]int, n+1)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, got.take())
}

// Work on one stream that uses a buffer written on another is preceded by
// one BARRIER_AND on the writer's fence, and runs after it; on the
// writer's own stream no barrier is needed.
func TestBarrierBetweenQueues(t *testing.T) {
	dev := device(t)
	s1, s2 := newStream(t, dev, 16), newStream(t, dev, 16)
	x := newMem(t, dev, 16)
	g := newGate(t)
	var got runLog
	gated(t, s1, g, func() { got.add(1) }, MemUse{x, Write})
	s1.mu.Lock()
	writer := s1.tail
	s1.mu.Unlock()
	require.NoError(t, hostOp(s1, func() error { got.add(2); return nil }, MemUse{x, Read}))
	assert.Equal(t, uint64(2), s1.Queue().LoadWriteIndex(), "no barrier on the writer's own queue")

	require.NoError(t, hostOp(s2, func() error { got.add(3); return nil }, MemUse{x, Read}))
	assert.Equal(t, uint64(2), s2.Queue().LoadWriteIndex(), "a barrier and the callback")
	s2.mu.Lock()
	require.Equal(t, 2, s2.count)
	b := &s2.ring[s2.head]
	assert.Equal(t, 1, b.ndeps, "barrier's dependencies")
	assert.Nil(t, b.fence, "a barrier before an operation has no completion signal of its own")
	assert.Same(t, writer, b.deps[0], "the barrier waits for x's writer, not for the reader after it")
	s2.mu.Unlock()
	assert.ErrorIs(t, s2.Query(), gpu.ErrNotReady, "the reader waits for the writer")

	g.open()
	require.NoError(t, s2.SynchronizeContext(within(t)))
	require.NoError(t, s1.Synchronize())
	got.mu.Lock()
	defer got.mu.Unlock()
	require.Len(t, got.got, 3)
	assert.Equal(t, 1, got.got[0], "the writer ran first")
	assert.ElementsMatch(t, []int{2, 3}, got.got[1:], "then both readers")
}

// A wait for more fences than a BARRIER_AND holds chains packets, five
// dependencies each; the last one is fenced, so the stream's work ends
// only when all of them completed.
func TestBarrierChain(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	var deps []*Fence
	for range 7 {
		f := fenceOn(t, other, "record")
		f.Retain() // WaitFences takes this reference over
		deps = append(deps, f)
	}
	require.NoError(t, s.WaitFences("wait event", deps))
	assert.Equal(t, uint64(2), s.Queue().LoadWriteIndex())
	s.mu.Lock()
	require.Equal(t, 2, s.count)
	first, last := &s.ring[s.head], &s.ring[(s.head+1)%len(s.ring)]
	assert.Equal(t, aql.MaxBarrierDeps, first.ndeps)
	assert.Nil(t, first.fence)
	assert.Equal(t, 2, last.ndeps)
	assert.NotNil(t, last.fence)
	assert.Same(t, last.fence, s.tail)
	s.mu.Unlock()
	for _, f := range deps[:6] {
		f.Cancel()
	}
	assert.ErrorIs(t, s.Query(), gpu.ErrNotReady, "one dependency is still pending")
	deps[6].Cancel()
	require.NoError(t, s.SynchronizeContext(within(t)))
}

// Drain waits for the stream's work and releases every in-flight packet,
// returning the fences to the stream's cache; it leaves the stream locked
// for the caller.
func TestDrainFlushes(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	g := newGate(t)
	ran := 0
	gated(t, s, g, func() {})
	for range 5 {
		require.NoError(t, hostOp(s, func() error { ran++; return nil }))
	}
	s.mu.Lock()
	assert.Equal(t, 6, s.count, "packets in flight")
	cached := s.fences.n // what the cache holds beside the fences in flight
	s.mu.Unlock()
	g.open()
	require.NoError(t, s.Drain("drain"))
	assert.Equal(t, 5, ran, "Drain returned before the work ended")
	assert.Zero(t, s.count, "in-flight packets after Drain")
	assert.True(t, s.tail.Done())
	assert.Equal(t, cached+5, s.fences.n, "fences back in the stream's cache (the tail's is held)")
	assert.False(t, s.mu.TryLock(), "Drain leaves the stream locked")
	s.Unlock()
}

// A destroyed stream refuses every operation with ErrInvalidHandle, and
// a second Destroy says it was destroyed already.
func TestDestroyedStream(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	x := newMem(t, dev, 4)
	other := newStream(t, dev, 16)
	require.NoError(t, hostOp(s, func() error { return nil }, MemUse{x, Write}))
	require.NoError(t, s.Destroy())
	assert.True(t, s.Destroyed())

	destroyed := func(what string, err error) {
		t.Helper()
		if assert.ErrorIs(t, err, gpu.ErrInvalidHandle, what) {
			assert.ErrorContains(t, err, "destroyed", what)
		}
	}
	destroyed("host op", hostOp(s, func() error { return nil }))
	_, err := s.BeginLaunch("launch")
	destroyed("launch", err)
	_, err = s.Record("event record", false)
	destroyed("record", err)
	f := fenceOn(t, other, "record")
	f.Retain()
	destroyed("wait event", s.WaitFences("wait event", []*Fence{f}))
	assert.Equal(t, int32(1), f.refs.Load(), "a refused wait releases the fence it was given")
	destroyed("synchronize", s.Synchronize())
	destroyed("query", s.Query())
	destroyed("drain", s.Drain("drain"))
	destroyed("destroy", s.Destroy())
	// The buffer's last use is settled: Free does not wait for a dead queue.
	require.NoError(t, x.Free())
}

// Streams that are no handle say so, without touching a queue.
func TestNoStream(t *testing.T) {
	var nilStream *Stream
	err := nilStream.Lock("launch")
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "nil stream")
	var zero Stream
	err = zero.Check("launch")
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "zero Stream")
	assert.ErrorIs(t, zero.Destroy(), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, zero.Synchronize(), gpu.ErrInvalidHandle)
}

// A failed packet's error is the stream's, sticky: the wait that sees it
// first returns it, later calls say the stream failed earlier, and the
// work queued behind the failure does not run.
func TestStickyError(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	boom := errors.New("callback failed on purpose")
	g := newGate(t)
	gated(t, s, g, func() {})
	require.NoError(t, hostOp(s, func() error { return boom }))
	after := false
	require.NoError(t, hostOp(s, func() error { after = true; return nil }))
	g.open()
	err := s.SynchronizeContext(within(t))
	require.Error(t, err)
	assert.ErrorIs(t, err, boom, "Synchronize returns the failure")
	assert.NotContains(t, err.Error(), "failed earlier", "the first report is the failure itself")
	assert.False(t, after, "work behind the failure ran")

	err = hostOp(s, func() error { return nil })
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "failed earlier")
	err = launch(s, kernelTag, &tagArgs{})
	assert.ErrorIs(t, err, boom)
	err = s.Synchronize()
	assert.ErrorIs(t, err, boom)
	assert.ErrorContains(t, err, "failed earlier")
	assert.True(t, s.isReported())
}

// A dispatch that fails (a Go kernel that panics) fails its stream the
// same way, and other streams go on.
func TestKernelFailureIsTheStreams(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	require.NoError(t, launch(s, kernelPanic, &tagArgs{}))
	err := s.SynchronizeContext(within(t))
	require.Error(t, err)
	assert.ErrorContains(t, err, "core_test_panic")
	kernelLog.take()
	require.NoError(t, launch(other, kernelTag, &tagArgs{Tag: 7}))
	require.NoError(t, other.Synchronize())
	assert.Equal(t, []int{7}, kernelLog.take())
}

// A submitter is found in an interface only for a stream made by Init;
// other values, nil pointers included, have none.
func TestStreamOf(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 8)
	assert.Same(t, s, StreamOf(s))
	assert.Nil(t, StreamOf((*Stream)(nil)))
	assert.Nil(t, StreamOf(new(Stream)), "a zero Stream is no stream")
	assert.Nil(t, StreamOf(nil))
	assert.Nil(t, StreamOf(struct{ Synchronize func() error }{}))
}
