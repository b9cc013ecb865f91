package stream_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/stream"
)

// A Record that waits for queue space must not keep the event from a
// host function of that queue that queries it: the host function is
// what the space waits for.
func TestRecordWaitingForSpaceLeavesEventFree(t *testing.T) {
	e := setup(t)
	s := e.stream()
	ev := e.event(stream.EventDefault)
	gate := make(chan struct{})
	queried := make(chan error, 1)
	require.NoError(t, s.LaunchHostFunc(func() error { <-gate; queried <- ev.Query(); return nil }))
	filled := make(chan error, 1)
	go func() {
		for i := 0; i < stream.QueueSize+64; i++ {
			if err := s.LaunchHostFunc(func() error { return nil }); err != nil {
				filled <- err
				return
			}
		}
		filled <- nil
	}()
	require.Eventually(t, func() bool { return written(s) >= stream.QueueSize }, 10*time.Second, time.Millisecond)
	recorded := make(chan error, 1)
	go func() { recorded <- s.Record(ev) }()
	time.Sleep(20 * time.Millisecond) // Record waits behind the full queue
	close(gate)

	select {
	case err := <-queried:
		assert.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Event.Query in a host function waits for a Record that waits for the host function")
	}
	require.NoError(t, <-filled)
	require.NoError(t, <-recorded)
	require.NoError(t, ev.Synchronize())
	require.NoError(t, s.Synchronize())
}

// An event destroyed while a Record of it is being submitted is not
// recorded, and the stream keeps working.
func TestRecordRacingDestroy(t *testing.T) {
	e := setup(t)
	s := e.stream()
	for i := 0; i < 200; i++ {
		ev := e.event(stream.EventDefault)
		done := make(chan error, 1)
		go func() { done <- s.Record(ev) }()
		require.NoError(t, ev.Destroy())
		if err := <-done; err != nil {
			assert.Contains(t, err.Error(), "destroyed")
		}
		assert.Error(t, ev.Query())
	}
	require.NoError(t, s.Synchronize())
}
