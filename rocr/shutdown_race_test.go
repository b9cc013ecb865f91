package rocr_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
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
	q, err := ags[0].CreateQueue(16, hsa.QueueMulti, nil)
	restore()
	require.NoError(t, <-shut)
	if err != nil {
		return // refused: nothing to release
	}
	if !assert.True(t, q.Destroyed(), "ShutDown left the queue made meanwhile running") {
		_ = q.Destroy()
	}
	_, err = ags[0].CreateQueue(16, hsa.QueueMulti, nil)
	assert.ErrorIs(t, err, hsa.ErrNotInitialized, "a queue after the last ShutDown")
}

// Allocations made while ShutDown closes the runtime are freed by it or
// refused: none outlives it, on a heap its driver has closed.
func TestShutDownWhileAllocating(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	for round := 0; round < 50; round++ {
		require.NoError(t, rocr.Init())
		ags, err := rocr.Agents()
		require.NoError(t, err)
		p, err := ags[0].Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for g := 0; g < 3; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					if _, err := p.Allocate(64); err != nil {
						return
					}
				}
			}()
		}
		require.NoError(t, rocr.ShutDown())
		wg.Wait()
		require.Zero(t, rocrhook.LiveAllocations(), "allocations left after ShutDown, round %d", round)
	}
}

// A Reset that starts while a queue is being made on its agent destroys
// the queue or leaves it whole: it does not free the kernarg area of a
// queue that it missed and that runs on.
func TestResetWhileCreatingQueue(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	require.NoError(t, rocr.Init())
	defer func() { require.NoError(t, rocr.ShutDown()) }()
	ags, err := rocr.Agents()
	require.NoError(t, err)
	a := ags[0]
	reset := make(chan error, 1)
	restore := rocr.SetCreateQueueHook(func() {
		go func() { reset <- a.Reset() }()
		select {
		case err := <-reset:
			reset <- err
		case <-time.After(200 * time.Millisecond):
		}
	})
	q, err := a.CreateQueue(16, hsa.QueueMulti, nil)
	restore()
	require.NoError(t, <-reset)
	if err != nil {
		return
	}
	if !q.Destroyed() {
		assert.False(t, rocr.KernargsFreed(q), "Reset freed the kernarg area of a queue it left running")
		require.NoError(t, q.Destroy())
	}
	// The agent takes queues again once the reset is over.
	q, err = a.CreateQueue(16, hsa.QueueMulti, nil)
	require.NoError(t, err)
	require.NoError(t, q.Destroy())
}
