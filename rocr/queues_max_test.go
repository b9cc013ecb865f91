package rocr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
)

// An agent's QueuesMax is enforced: one queue more is an error wrapping
// ErrOutOfResources that names the limit; destroying one makes room again.
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
		q, err := a.CreateQueue(2, rocr.QueueSingle, nil)
		require.NoError(t, err)
		qs = append(qs, q)
	}
	q, err := a.CreateQueue(2, rocr.QueueSingle, nil)
	if err == nil {
		qs = append(qs, q)
	}
	require.Error(t, err, "queue %d of an agent with QueuesMax %d", limit+1, limit)
	assert.ErrorIs(t, err, rocr.ErrOutOfResources)
	assert.Contains(t, err.Error(), "QueuesMax")
	require.NoError(t, qs[0].Destroy())
	qs = qs[1:]
	q, err = a.CreateQueue(2, rocr.QueueSingle, nil)
	require.NoError(t, err, "a queue after one was destroyed")
	qs = append(qs, q)
}
