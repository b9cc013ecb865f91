package reliability_test

import (
	"context"
	"errors"
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
// and SynchronizeContext (bounded by its context) answer anyway.
func TestQueryBehindFullQueue(t *testing.T) {
	f := open(t, 1)
	s := f.stream(f.dev)
	spin := f.function(f.dev, "reliability_spin")
	require.NoError(t, spin.Launch(s, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(300)))
	flood := make(chan error, 1)
	go func() {
		for i := 0; i < 2*stream.QueueSize; i++ {
			if err := kernels.Empty(s); err != nil {
				flood <- err
				return
			}
		}
		flood <- nil
	}()
	time.Sleep(50 * time.Millisecond) // the ring is full behind the spinning kernel

	start := time.Now()
	err := s.Query()
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.Less(t, time.Since(start), 50*time.Millisecond, "Query waited behind the submitter")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = s.SynchronizeContext(ctx)
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "error %v should wrap the context's", err)
	assert.Less(t, time.Since(start), 150*time.Millisecond, "SynchronizeContext outlived its context")

	require.NoError(t, <-flood)
	require.NoError(t, s.Synchronize())
	assert.NoError(t, s.Query())
}
