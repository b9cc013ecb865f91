package reliability_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// TestQueryBehindFullQueue: a goroutine that submits to a full queue holds
// the stream while it waits for room; Query (documented never to block)
// and SynchronizeContext (bounded by its context) answer anyway. The
// kernel in front spins until the test releases it, so both must answer
// while it still runs: an order of events. A call that blocked would
// block until the release, which only the watchdog's ten seconds end.
func TestQueryBehindFullQueue(t *testing.T) {
	f := open(t, 1)
	s := f.stream(f.dev)
	spin := f.function(f.dev, "reliability_spin")
	gate := newHost[int32](t, f.dev, 1)
	release := func() { atomic.StoreInt32(&gate.Slice()[0], 1) }
	t.Cleanup(release)
	require.NoError(t, spin.Launch(s, gpu.D1(1), gpu.D1(1), 0, gate, int32(-1)))
	var submitted atomic.Int64
	flood := make(chan error, 1)
	go func() {
		for i := 0; i < 2*stream.QueueSize; i++ {
			if err := kernels.Empty(s); err != nil {
				flood <- err
				return
			}
			submitted.Add(1)
		}
		flood <- nil
	}()
	// The ring holds QueueSize packets, the spinning kernel one of them:
	// the flood stops short of its 2*QueueSize submissions and waits for
	// room. Wait until its count stops growing.
	for last := int64(-1); ; {
		time.Sleep(20 * time.Millisecond)
		n := submitted.Load()
		if n == last && n > 0 {
			break
		}
		last = n
	}

	answered := func(what string, call func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- call() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			release()
			t.Fatalf("%s blocked behind the submitter until the kernel was released", what)
			return nil
		}
	}
	err := answered("Query", s.Query)
	assert.ErrorIs(t, err, gpu.ErrNotReady, "Query while the kernel spins")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err = answered("SynchronizeContext", func() error { return s.SynchronizeContext(ctx) })
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "error %v should wrap the context's", err)
	assert.Less(t, submitted.Load(), int64(2*stream.QueueSize), "the flood got through while the kernel spun")

	release()
	require.NoError(t, <-flood)
	require.NoError(t, s.Synchronize())
	assert.NoError(t, s.Query())
}
