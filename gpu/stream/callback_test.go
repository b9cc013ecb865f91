package stream_test

import (
	gosync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostref"
)

// AddCallback is one host-function packet: what tells it of a failure is
// the packet's own discard, not an event recorded after it.
func TestAddCallbackOnePacket(t *testing.T) {
	e := setup(t)
	s := e.stream()
	defer s.Destroy()
	before := written(s)
	done := make(chan error, 1)
	require.NoError(t, s.AddCallback(func(_ *stream.Stream, status error) { done <- status }))
	assert.Equal(t, before+1, written(s), "packets for one callback")
	sync(t, s)
	assert.NoError(t, <-done)
}

// Callbacks added from several goroutines behind work that then fails each
// run once, with the failure, and leave no registration behind.
func TestAddCallbackFailureRace(t *testing.T) {
	e := setup(t)
	s := e.stream()
	defer s.Destroy()
	pending := hostref.PendingCallbacks()
	release := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error {
		<-release
		return gpu.Errorf(gpu.ErrLaunchFailure, "test", "earlier work failed")
	}))
	const adders, each = 4, 50
	var ran, failed atomic.Int32
	var wg, adding gosync.WaitGroup
	wg.Add(adders * each)
	for range adders {
		adding.Go(func() {
			for range each {
				err := s.AddCallback(func(cs *stream.Stream, status error) {
					defer wg.Done()
					assert.Same(t, s, cs)
					ran.Add(1)
					if status != nil {
						failed.Add(1)
					}
				})
				if !assert.NoError(t, err) {
					wg.Done()
				}
			}
		})
	}
	adding.Wait()
	close(release)
	assert.Error(t, s.Synchronize())
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d of %d callbacks ran", ran.Load(), adders*each)
	}
	assert.Equal(t, int32(adders*each), ran.Load(), "each callback once")
	assert.Equal(t, int32(adders*each), failed.Load(), "each with the failure")
	assert.Equal(t, pending, hostref.PendingCallbacks(), "registrations left")
}

// BenchmarkAddCallback is a callback added and the stream synchronized.
func BenchmarkAddCallback(b *testing.B) {
	e := setup(b)
	s := e.stream()
	defer s.Destroy()
	fn := func(*stream.Stream, error) {}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.AddCallback(fn); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
}
