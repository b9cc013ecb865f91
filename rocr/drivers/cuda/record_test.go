package cuda_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// An event record completes when the GPU passes it, not when the stream
// drains: the record is observed through a CUDA event of its own, and
// the stream behind it here waits on the GPU for a signal only the host
// completes.
func TestRecordPassesBeforeTheWorkAfterIt(t *testing.T) {
	a := setup(t)
	empty, _ := library(t, a)
	q := queue(t, a, 64)
	r0, r1, gate := signal(t, 1), signal(t, 1), signal(t, 1)
	dispatch(q, empty, nil, 1, 1, nil)
	barrier(q, nil, r0)
	barrier(q, []*rocr.Signal{gate}, nil)
	dispatch(q, empty, nil, 1, 1, nil)
	barrier(q, nil, r1)
	v, ok := r0.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitActive)
	require.True(t, ok, "the first record is still %d while the stream waits behind it", v)
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, int64(1), r1.Load(hsa.Acquire), "the second record passed a gate nobody opened")
	gate.Store(0, hsa.Release)
	require.NoError(t, wait(t, r1))
	assert.NoError(t, q.Err())
}

// More records in flight than a stream has events for (the rest write the
// progress count), each waited for by another queue and by the host in
// order: every wait orders what it should, and every record
// completes.
func TestRecordsInFlight(t *testing.T) {
	a := setup(t)
	q1, q2 := queue(t, a, 1024), queue(t, a, 1024)
	const rounds, chunk = 100, 1 << 16
	X := alloc(t, a, hsa.FlagCoarseGrained, 4*rounds*chunk)
	z := make([]uint32, rounds*chunk)
	ids := make([]uint64, rounds)
	for i := range ids {
		ids[i] = hostref.PinHost(unsafe.Slice((*byte)(unsafe.Pointer(&z[i*chunk])), 4*chunk))
		defer hostref.UnpinHost(ids[i])
	}
	gate := signal(t, 1)
	barrier(q1, []*rocr.Signal{gate}, nil) // every record below is queued before any passes
	recs := make([]*rocr.Signal, rounds)
	for i := range recs {
		recs[i] = signal(t, 1)
		agentPacket(q1, aql.FillWork{Dst: uint64(X.Base) + 4*chunk*uint64(i), Pattern: uint64(i + 1), Count: chunk, ElemSize: 4}.Call(), nil)
		barrier(q1, nil, recs[i])
	}
	done := signal(t, 1)
	for i := range recs {
		barrier(q2, []*rocr.Signal{recs[i]}, nil)
		var sig *rocr.Signal
		if i == rounds-1 {
			sig = done
		}
		agentPacket(q2, aql.CopyWork{Dst: ids[i], Src: uint64(X.Base) + 4*chunk*uint64(i), Bytes: 4 * chunk, Flags: aql.CopyDstHost}.Call(), sig)
	}
	time.Sleep(10 * time.Millisecond)
	assert.Equal(t, int64(1), recs[0].Load(hsa.Acquire), "a record passed the closed gate")
	gate.Store(0, hsa.Release)
	for i := range recs {
		require.NoError(t, wait(t, recs[i]), "record %d", i)
	}
	require.NoError(t, wait(t, done))
	for i := 0; i < rounds; i++ {
		for _, j := range []int{0, chunk / 2, chunk - 1} {
			require.Equal(t, uint32(i+1), z[i*chunk+j], "chunk %d element %d: the copy ran before the fill its barrier waited for", i, j)
		}
	}
	assert.NoError(t, q1.Err())
	assert.NoError(t, q2.Err())
}

// An event record that another stream waited for on the GPU completes as
// soon as that stream's later work is known done: the wait proves the
// record passed, and the host asks the driver nothing more about it. Each
// round waits for the second stream one way (a bounded wait, which
// flushes its progress; an unbounded one, which synchronizes the stream)
// and finds the first stream's record complete at once.
func TestRecordSettledByAWait(t *testing.T) {
	a := setup(t)
	empty, _ := library(t, a)
	q1, q2 := queue(t, a, 256), queue(t, a, 256)
	const rounds = 40
	for i := range rounds {
		rec, done := signal(t, 1), signal(t, 1)
		dispatch(q1, empty, nil, 1, 1, nil)
		barrier(q1, nil, rec)
		barrier(q2, []*rocr.Signal{rec}, nil)
		dispatch(q2, empty, nil, 1, 1, done)
		if i%2 == 0 {
			require.NoError(t, wait(t, done))
		} else {
			done.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive)
			require.NoError(t, done.Err())
		}
		require.Equal(t, int64(0), rec.Load(hsa.Acquire), "round %d: the record is pending after the stream that waited for it finished", i)
		require.NoError(t, rec.Err())
		require.NoError(t, rec.Destroy())
		require.NoError(t, done.Destroy())
	}
	assert.NoError(t, q1.Err())
	assert.NoError(t, q2.Err())
}
