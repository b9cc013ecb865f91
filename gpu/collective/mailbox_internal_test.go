package collective

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// A rank that delivered its part of a collective and then left (its
// communicator destroyed after its stream finished) does not fail the
// others, which still wait for a later rank's part; a rank that left
// before its part came does.
func TestMailboxDepartAfterDelivering(t *testing.T) {
	b := newMailbox(3) // rank 1's
	b.put(0, &msg{coll: true, data: []byte{0}})
	m, err := b.take("allreduce", 0, true)
	require.NoError(t, err)
	assert.Equal(t, []byte{0}, m.data)
	b.depart(0, errDestroyed)
	time.AfterFunc(10*time.Millisecond, func() { b.put(2, &msg{coll: true, data: []byte{2}}) })
	m, err = b.take("allreduce", 2, true)
	require.NoError(t, err, "rank 0 had delivered")
	assert.Equal(t, []byte{2}, m.data)

	// The next collective: rank 0 is gone before its part came.
	_, err = b.take("allreduce", 0, true)
	assert.ErrorIs(t, err, gpu.ErrLaunchFailure)
	assert.ErrorContains(t, err, "rank 0: its communicator was destroyed")

	// Waiting for rank 1's part, rank 2 leaves without sending its own.
	c := newMailbox(3) // rank 0's
	time.AfterFunc(10*time.Millisecond, func() { c.depart(2, errDestroyed) })
	_, err = c.take("allreduce", 1, true)
	assert.ErrorContains(t, err, "rank 2: its communicator was destroyed")
}
