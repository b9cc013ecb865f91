package rocr_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
)

// A ShutDown that starts while a queue is being made destroys that queue
// too: it waits for the queue to be tracked instead of missing it, which
// left its processor and the cpu agent's workers running.
func TestShutDownWhileCreatingQueue(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	require.NoError(t, rocr.Init())
	ags, err := rocr.Agents()
	require.NoError(t, err)
	shut := make(chan error, 1)
	restore := rocr.SetCreateQueueHook(func() {
		go func() { shut <- rocr.ShutDown() }()
		// Long enough for a ShutDown that does not wait for this queue to
		// finish without it.
		select {
		case err := <-shut:
			shut <- err
		case <-time.After(200 * time.Millisecond):
		}
	})
	q, err := ags[0].CreateQueue(16, rocr.QueueMulti, nil)
	restore()
	require.NoError(t, <-shut)
	if err != nil {
		return // refused: nothing to release
	}
	if !assert.True(t, q.Destroyed(), "ShutDown left the queue made meanwhile running") {
		_ = q.Destroy()
	}
	_, err = ags[0].CreateQueue(16, rocr.QueueMulti, nil)
	assert.ErrorIs(t, err, rocr.ErrNotInitialized, "a queue after the last ShutDown")
}
