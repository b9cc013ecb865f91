package rocr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// An agent's QueuesMax is enforced: one queue more is an error wrapping
// hsa.ErrOutOfResources that names the limit; destroying one makes room again.
func TestQueuesMaxEnforced(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	limit := a.Info().QueuesMax
	require.Positive(t, limit)
	qs := make([]*rocr.Queue, 0, limit)
	defer func() {
		for _, q := range qs {
			_ = q.Destroy()
		}
	}()
	for range limit {
		q, err := a.CreateQueue(2, hsa.QueueSingle, nil)
		require.NoError(t, err)
		qs = append(qs, q)
	}
	q, err := a.CreateQueue(2, hsa.QueueSingle, nil)
	if err == nil {
		qs = append(qs, q)
	}
	require.Error(t, err, "queue %d of an agent with QueuesMax %d", limit+1, limit)
	assert.ErrorIs(t, err, hsa.ErrOutOfResources)
	assert.Contains(t, err.Error(), "QueuesMax")
	require.NoError(t, qs[0].Destroy())
	qs = qs[1:]
	q, err = a.CreateQueue(2, hsa.QueueSingle, nil)
	require.NoError(t, err, "a queue after one was destroyed")
	qs = append(qs, q)
}

// A reserved slot stays free of CreateQueue's queues: with every other
// slot taken, CreateReservedQueue still succeeds, once at a time.
func TestQueuesMaxReservedSlot(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	limit := a.Info().QueuesMax
	require.NoError(t, a.ReserveQueueSlot())
	require.NoError(t, a.ReserveQueueSlot(), "reserving again")
	var qs []*rocr.Queue
	defer func() {
		for _, q := range qs {
			_ = q.Destroy()
		}
	}()
	for {
		q, err := a.CreateQueue(2, hsa.QueueSingle, nil)
		if err != nil {
			require.ErrorIs(t, err, hsa.ErrOutOfResources)
			assert.Contains(t, err.Error(), "kept for the runtime's copies")
			break
		}
		qs = append(qs, q)
		require.Less(t, len(qs), limit, "CreateQueue took the reserved slot")
	}
	assert.Len(t, qs, limit-1)
	r, err := a.CreateReservedQueue(2, hsa.QueueSingle, nil)
	require.NoError(t, err)
	_, err = a.CreateReservedQueue(2, hsa.QueueSingle, nil)
	require.ErrorIs(t, err, hsa.ErrOutOfResources, "a second queue in the slot")
	require.NoError(t, r.Destroy())
	r, err = a.CreateReservedQueue(2, hsa.QueueSingle, nil)
	require.NoError(t, err, "the slot after its queue was destroyed")
	qs = append(qs, r)
}
