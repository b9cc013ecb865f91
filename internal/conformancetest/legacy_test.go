package conformancetest

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// slowWork queues on s a host function that returns after a while and
// then sets the returned flag: a Synchronize that returns before the flag
// is set did not wait for s.
func slowWork(t *testing.T, s *stream.Stream) *atomic.Bool {
	t.Helper()
	var done atomic.Bool
	require.NoError(t, s.LaunchHostFunc(func() error {
		time.Sleep(50 * time.Millisecond)
		done.Store(true)
		return nil
	}))
	return &done
}

// The legacy stream is hipgo's stream 0 as HIP's hipStreamSynchronize(0)
// and hipStreamQuery(0) see it: it covers the work of every blocking
// stream of the device and of the default (per-thread) stream.
func TestNullStream(t *testing.T) {
	dev := device(t)
	legacy, err := stream.Legacy(dev)
	require.NoError(t, err)

	// hip-tests catch/unit/stream/hipStreamSynchronize.cc: Unit_hipStreamSynchronize_NullStreamSynchronization
	t.Run("NullStreamSynchronization", func(t *testing.T) {
		s := newStream(t, dev)
		done := slowWork(t, s)
		require.NoError(t, legacy.Synchronize())
		assert.True(t, done.Load(), "hipStreamSynchronize(0) returned before a blocking stream's work")
		assert.NoError(t, s.Query())
	})
	// hip-tests catch/unit/stream/hipStreamSynchronize.cc: Unit_hipStreamSynchronize_NullStreamAndStreamPerThread
	t.Run("NullStreamAndStreamPerThread", func(t *testing.T) {
		def, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		done := slowWork(t, def)
		require.NoError(t, legacy.Synchronize())
		assert.True(t, done.Load(), "hipStreamSynchronize(0) returned before the per-thread stream's work")
	})
	// hip-tests catch/unit/stream/hipStreamQuery.cc: Unit_hipStreamQuery_SubmitWorkOnStreamAndQueryNullStream
	t.Run("SubmitWorkOnStreamAndQueryNullStream", func(t *testing.T) {
		s := newStream(t, dev)
		release := block(t, s)
		assert.ErrorIs(t, legacy.Query(), gpu.ErrNotReady, "hipStreamQuery(0) with a blocking stream's work pending")
		release()
		require.NoError(t, s.Synchronize())
		assert.NoError(t, legacy.Query())
	})
	// hip-tests catch/unit/streamperthread/hipStreamPerThread_Basic.cc: Unit_hipStreamPerThread_Basic (the null stream's query)
	t.Run("StreamPerThread_QueryNullStream", func(t *testing.T) {
		def, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		release := block(t, def)
		assert.ErrorIs(t, legacy.Query(), gpu.ErrNotReady)
		release()
		require.NoError(t, legacy.Synchronize())
		assert.NoError(t, def.Query())
	})
	// hip-tests catch/unit/stream/hipStreamCreateWithFlags.cc: a non-blocking
	// stream does not synchronize with the null stream.
	t.Run("NonBlockingStreamIsExempt", func(t *testing.T) {
		nb, err := stream.NewWithFlags(dev, stream.NonBlocking, stream.PriorityLow)
		require.NoError(t, err)
		t.Cleanup(func() { _ = nb.Destroy() })
		release := block(t, nb)
		assert.NoError(t, legacy.Query(), "the null stream waits for a non-blocking stream")
		require.NoError(t, legacy.Synchronize())
		assert.ErrorIs(t, nb.Query(), gpu.ErrNotReady)
		release()
		require.NoError(t, nb.Synchronize())
	})
}
