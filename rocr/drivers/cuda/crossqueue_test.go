package cuda_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// The rocr-level cross-queue pattern (BenchmarkCUDA/cross_queue) with its
// two signals re-armed every round, as a ROCR program reuses them: q2's
// barrier waits for q1's kernel. Two faults lived here: an idle
// processor's settle of the previous round decremented the next round's
// value (the barrier's GPU wait then saw it pass from 1 to -1 and hung),
// and a dispatch that went through q1's processor left the barrier to
// wait on the GPU for a host completion nobody hurried (a millisecond).
// Every round must complete; the slow ones are logged.
func TestCrossQueueSignalReuse(t *testing.T) {
	a := setup(t)
	empty, _ := library(t, a)
	q1, q2 := queue(t, a, 4096), queue(t, a, 4096)
	s1, s2 := signal(t, 1), signal(t, 1)
	rounds := 20000
	if testing.Short() {
		rounds = 3000
	}
	slow := 0
	for i := 0; i < rounds; i++ {
		start := time.Now()
		s1.Store(1, hsa.Release)
		s2.Store(1, hsa.Release)
		dispatch(q1, empty, nil, 1, 1, s1)
		barrier(q2, []*rocr.Signal{s1}, nil)
		dispatch(q2, empty, nil, 1, 1, s2)
		v, ok := s2.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitActive)
		require.True(t, ok, "round %d: s2 still %d after 5s (s1 %d)", i, v, s1.Load(hsa.Acquire))
		if time.Since(start) > 500*time.Microsecond {
			slow++
		}
	}
	t.Logf("%d of %d rounds took over 500 µs", slow, rounds)
	assert.NoError(t, q1.Err())
	assert.NoError(t, q2.Err())
}
