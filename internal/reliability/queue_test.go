package reliability_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr"
)

// queueOf finds the rocr queue behind s, which the API does not expose:
// the queue whose processor runs the barrier of an event recorded on s.
func queueOf(t testing.TB, s *stream.Stream) *rocr.Queue {
	t.Helper()
	var got atomic.Pointer[rocr.Queue]
	prev := rocrhook.SetFaultHook(func(op rocrhook.FaultOp, q any, _ uint64) error {
		if op == rocrhook.FaultBarrier {
			got.CompareAndSwap(nil, q.(*rocr.Queue))
		}
		return nil
	})
	defer func() { rocrhook.SetFaultHook(prev) }()
	ev, err := stream.NewEvent(s.Device(), stream.EventDefault)
	require.NoError(t, err)
	defer ev.Destroy()
	require.NoError(t, s.Record(ev))
	require.NoError(t, s.Synchronize())
	q := got.Load()
	require.NotNil(t, q, "no barrier seen on the stream's queue")
	return q
}
