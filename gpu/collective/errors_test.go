package collective_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

func TestBadArguments(t *testing.T) {
	r := newRanks(t, 2)
	c, s := r.comms[0], r.streams[0]
	dev, other := c.Device(), r.comms[1].Device()
	a, b := zeros[float32](t, dev, 4), zeros[float32](t, dev, 4)
	long := zeros[float32](t, dev, 8)
	elsewhere := zeros[float32](t, other, 4)
	freed, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	var nilBuf *buffer.Buffer[float32]

	cases := []struct {
		name string
		code gpu.ErrorCode
		call func() error
	}{
		{"nil communicator", gpu.ErrInvalidHandle, func() error { return collective.AllReduce(nil, s, a, b, collective.Sum) }},
		{"nil stream", gpu.ErrInvalidHandle, func() error { return collective.AllReduce(c, nil, a, b, collective.Sum) }},
		{"nil send", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, s, nilBuf, b, collective.Sum) }},
		{"nil recv", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, s, a, nil, collective.Sum) }},
		{"freed buffer", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, s, freed, b, collective.Sum) }},
		{"stream of another rank", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, r.streams[1], a, b, collective.Sum) }},
		{"not a reduction", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, s, a, b, collective.Op(9)) }},
		{"allreduce lengths", gpu.ErrInvalidValue, func() error { return collective.AllReduce(c, s, a, long, collective.Sum) }},
		{"broadcast root", gpu.ErrInvalidValue, func() error { return collective.Broadcast(c, s, a, b, 2) }},
		{"broadcast root without send", gpu.ErrInvalidValue, func() error { return collective.Broadcast(c, s, nil, b, 0) }},
		{"broadcast lengths", gpu.ErrInvalidValue, func() error { return collective.Broadcast(c, s, a, long, 0) }},
		{"reduce root", gpu.ErrInvalidValue, func() error { return collective.Reduce(c, s, a, b, collective.Max, -1) }},
		{"reduce root without recv", gpu.ErrInvalidValue, func() error { return collective.Reduce(c, s, a, nil, collective.Max, 0) }},
		{"allgather lengths", gpu.ErrInvalidValue, func() error { return collective.AllGather(c, s, a, b) }},
		{"allgather in place", gpu.ErrInvalidValue, func() error { return collective.AllGather(c, s, long, long) }},
		{"reducescatter lengths", gpu.ErrInvalidValue, func() error { return collective.ReduceScatter(c, s, a, a, collective.Sum) }},
		{"send peer", gpu.ErrInvalidValue, func() error { return collective.Send(c, s, a, 5) }},
		{"recv peer", gpu.ErrInvalidValue, func() error { return collective.Recv(c, s, a, -1) }},
		{"recv nil", gpu.ErrInvalidValue, func() error { return collective.Recv(c, s, nilBuf, 1) }},
	}
	for _, tc := range cases {
		err := tc.call()
		assert.ErrorIs(t, err, tc.code, tc.name)
		var ge *gpu.Error
		assert.ErrorAs(t, err, &ge, tc.name)
	}
	err = collective.AllReduce(c, s, elsewhere, b, collective.Sum)
	assert.ErrorIs(t, err, gpu.ErrNotOwner, "a buffer of another device")
	assert.ErrorContains(t, err, "not on device")

	// Nothing bad was queued: the stream is clean.
	require.NoError(t, s.Synchronize())

	_, err = collective.NewAll()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = collective.NewAll(dev, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidDevice)
	_, err = collective.NewAll(dev, dev)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	if driver() == "cpu" { // NCCL cannot tell a made-up ID: it tries to reach it
		_, err = collective.NewRank(dev, collective.ID{}, 0, 1)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "an ID not made by NewID")
	}
	_, err = collective.NewRank(dev, collective.ID{}, 2, 2)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = collective.Join(dev, nil, 0, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Equal(t, -1, (*collective.Comm)(nil).Rank())
	assert.Equal(t, 0, (*collective.Comm)(nil).Size())
}

func TestDestroyed(t *testing.T) {
	r := newRanks(t, 2)
	c, s := r.comms[0], r.streams[0]
	a := zeros[int32](t, c.Device(), 3)
	require.NoError(t, r.comms[1].Destroy())
	require.NoError(t, c.Destroy())
	assert.ErrorIs(t, c.Destroy(), gpu.ErrInvalidHandle, "a second destroy")
	assert.ErrorIs(t, c.Abort(), gpu.ErrInvalidHandle, "abort after destroy")
	assert.ErrorIs(t, collective.AllReduce(c, s, a, a, collective.Sum), gpu.ErrInvalidHandle)
	_, err := collective.GroupStart(c)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorIs(t, (*collective.Comm)(nil).Destroy(), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, (*collective.Comm)(nil).Abort(), gpu.ErrInvalidHandle)
}

// syncErr waits for s, failing t if that takes long.
func syncErr(t *testing.T, s *stream.Stream) error {
	t.Helper()
	var err error
	within(t, 30*time.Second, "the stream", func() { err = s.Synchronize() })
	return err
}

func TestMismatchFailsEveryRank(t *testing.T) {
	cpuOnly(t)
	r := newRanks(t, 2)
	a := zeros[float32](t, r.comms[0].Device(), 4)
	b := zeros[float32](t, r.comms[1].Device(), 8)
	require.NoError(t, collective.AllReduce(r.comms[0], r.streams[0], a, a, collective.Sum))
	require.NoError(t, collective.AllReduce(r.comms[1], r.streams[1], b, b, collective.Sum))
	for i, s := range r.streams {
		err := syncErr(t, s)
		assert.ErrorContains(t, err, "AllReduce of 4 float32 (sum)", "rank %d", i)
		assert.ErrorContains(t, err, "AllReduce of 8 float32 (sum)", "rank %d", i)
	}
}

func TestRecvMismatch(t *testing.T) {
	cpuOnly(t)
	r := newRanks(t, 2)
	a := zeros[float32](t, r.comms[0].Device(), 4)
	b := zeros[int32](t, r.comms[1].Device(), 4)
	require.NoError(t, collective.Send(r.comms[0], r.streams[0], a, 1))
	require.NoError(t, collective.Recv(r.comms[1], r.streams[1], b, 0))
	assert.NoError(t, syncErr(t, r.streams[0]), "a send does not wait for its receiver")
	assert.ErrorContains(t, syncErr(t, r.streams[1]), "receives 4 int32 from rank 0, which sent 4 float32")
}

func TestPeerLeaves(t *testing.T) {
	cpuOnly(t)
	r := newRanks(t, 3)
	a := zeros[float64](t, r.comms[0].Device(), 2)
	require.NoError(t, collective.AllReduce(r.comms[0], r.streams[0], a, a, collective.Sum))
	require.NoError(t, r.comms[2].Destroy())
	err := syncErr(t, r.streams[0])
	assert.ErrorContains(t, err, "rank 2: its communicator was destroyed")
	assert.ErrorIs(t, err, gpu.ErrLaunchFailure)
}

func TestAbort(t *testing.T) {
	cpuOnly(t)
	r := newRanks(t, 2)
	a := zeros[float64](t, r.comms[0].Device(), 2)
	b := zeros[float64](t, r.comms[1].Device(), 2)
	require.NoError(t, collective.AllReduce(r.comms[0], r.streams[0], a, a, collective.Sum))
	time.Sleep(10 * time.Millisecond) // let it wait for rank 1
	require.NoError(t, r.comms[0].Abort())
	assert.ErrorContains(t, syncErr(t, r.streams[0]), "aborted")
	// Rank 0 handed over its part before it was aborted: rank 1's first
	// AllReduce completes, the next finds rank 0 gone.
	require.NoError(t, collective.AllReduce(r.comms[1], r.streams[1], b, b, collective.Sum))
	require.NoError(t, syncErr(t, r.streams[1]))
	require.NoError(t, collective.AllReduce(r.comms[1], r.streams[1], b, b, collective.Sum))
	assert.ErrorContains(t, syncErr(t, r.streams[1]), "rank 0: its communicator was aborted")
	s, err := stream.New(r.comms[0].Device())
	require.NoError(t, err)
	defer s.Destroy()
	assert.ErrorIs(t, collective.AllReduce(r.comms[0], s, a, a, collective.Sum), gpu.ErrInvalidHandle)
}

func TestGroupErrors(t *testing.T) {
	r := newRanks(t, 2)
	c := r.comms[0]
	a := zeros[float32](t, c.Device(), 2)
	g, err := collective.GroupStart(c, r.comms[1])
	require.NoError(t, err)
	_, err = collective.GroupStart(c)
	assert.ErrorIs(t, err, gpu.ErrIllegalState, "a communicator in an open group")
	s2, err := stream.New(c.Device())
	require.NoError(t, err)
	defer s2.Destroy()
	require.NoError(t, collective.AllReduce(c, r.streams[0], a, a, collective.Sum))
	require.NoError(t, collective.AllReduce(c, s2, a, a, collective.Sum))
	assert.ErrorContains(t, g.End(), "two streams")
	assert.ErrorIs(t, g.End(), gpu.ErrIllegalState, "a second End")
	assert.ErrorIs(t, (*collective.Group)(nil).End(), gpu.ErrInvalidHandle)
	_, err = collective.GroupStart()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = collective.GroupStart(c, c)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = collective.GroupStart(c, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	// Nothing from the failed group was queued, and the communicators are
	// free for a new group.
	require.NoError(t, r.streams[0].Synchronize())
	g, err = collective.GroupStart(r.comms...)
	require.NoError(t, err)
	require.NoError(t, g.End())
}

// One goroutine drives every rank through a group.
func TestGroupDrivesAllRanks(t *testing.T) {
	n := 4
	if driver() != "cpu" {
		n = 2 // the two-GPU machine
	}
	r := newRanks(t, n)
	bufs := make([]*buffer.Buffer[int32], n)
	for i := range bufs {
		bufs[i] = upload(t, r.comms[i].Device(), []int32{int32(i), 10})
	}
	g, err := collective.GroupStart(r.comms...)
	require.NoError(t, err)
	for i, c := range r.comms {
		require.NoError(t, collective.AllReduce(c, r.streams[i], bufs[i], bufs[i], collective.Sum))
		require.NoError(t, collective.AllReduce(c, r.streams[i], bufs[i], bufs[i], collective.Max))
	}
	require.NoError(t, g.End())
	for i, s := range r.streams {
		require.NoError(t, syncErr(t, s))
		assert.Equal(t, []int32{int32(n * (n - 1) / 2), int32(10 * n)}, read(t, bufs[i]), "rank %d", i)
	}
}

// A collective that reads a buffer written on another stream waits for
// that write, as a launch does.
func TestDependencies(t *testing.T) {
	r := newRanks(t, 2)
	dev := r.comms[0].Device()
	other, err := stream.New(dev)
	require.NoError(t, err)
	defer other.Destroy()
	a := zeros[float32](t, dev, 3)
	b := zeros[float32](t, r.comms[1].Device(), 3)
	gate := make(chan struct{})
	require.NoError(t, other.LaunchHostFunc(func() error { <-gate; return nil }))
	require.NoError(t, stream.CopyToDevice(other, a, 0, []float32{1, 2, 3}))
	require.NoError(t, collective.AllReduce(r.comms[0], r.streams[0], a, a, collective.Sum))
	require.NoError(t, collective.AllReduce(r.comms[1], r.streams[1], b, b, collective.Sum))
	time.Sleep(20 * time.Millisecond)
	assert.ErrorIs(t, r.streams[1].Query(), gpu.ErrNotReady, "the collective waits for the copy on another stream")
	close(gate)
	for _, s := range r.streams {
		require.NoError(t, syncErr(t, s))
	}
	assert.Equal(t, []float32{1, 2, 3}, read(t, a))
	assert.Equal(t, []float32{1, 2, 3}, read(t, b))
}

// Destroy and Abort race collectives issued from other goroutines: every
// call returns nil or ErrInvalidHandle, and every stream finishes.
func TestDestroyRacesCollectives(t *testing.T) {
	cpuOnly(t)
	for iter := range 10 {
		r := newRanks(t, 3)
		bufs := make([]*buffer.Buffer[float32], 3)
		for i := range bufs {
			bufs[i] = upload(t, r.comms[i].Device(), []float32{1, 2})
		}
		var wg sync.WaitGroup
		for i, c := range r.comms {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for range 20 {
					err := collective.AllReduce(c, r.streams[i], bufs[i], bufs[i], collective.Max)
					if err != nil {
						assert.True(t, errors.Is(err, gpu.ErrInvalidHandle) || r.streams[i].Err() != nil, "iteration %d rank %d: %v", iter, i, err)
						return
					}
				}
			}()
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
				end := c.Destroy
				if (iter+i)%3 == 0 {
					end = c.Abort
				}
				assert.NoError(t, end(), "iteration %d rank %d", iter, i)
			}()
		}
		within(t, 30*time.Second, "collectives racing Destroy", wg.Wait)
		for _, s := range r.streams {
			_ = syncErr(t, s) // a stream whose peer left has failed; it must not hang
		}
	}
}

// Groups open and end while other goroutines issue operations on the
// same communicators: nothing panics or hangs.
func TestGroupRacesOperations(t *testing.T) {
	r := newRanks(t, 2)
	bufs := []*buffer.Buffer[int64]{
		upload(t, r.comms[0].Device(), []int64{1}),
		upload(t, r.comms[1].Device(), []int64{2}),
	}
	var wg sync.WaitGroup
	for i, c := range r.comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				assert.NoError(t, collective.AllReduce(c, r.streams[i], bufs[i], bufs[i], collective.Max))
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			g, err := collective.GroupStart(r.comms...)
			if err != nil {
				assert.ErrorIs(t, err, gpu.ErrIllegalState)
				continue
			}
			assert.NoError(t, g.End())
		}
	}()
	within(t, 30*time.Second, "groups racing operations", wg.Wait)
	for i, s := range r.streams {
		require.NoError(t, syncErr(t, s))
		assert.Equal(t, []int64{2}, read(t, bufs[i]))
	}
}

// An operation on a destroyed or aborted communicator says so, even when
// the stream it names failed earlier.
func TestEndedCommunicatorOverFailedStream(t *testing.T) {
	for _, end := range []string{"destroyed", "aborted"} {
		t.Run(end, func(t *testing.T) {
			r := newRanks(t, 2)
			c, s := r.comms[0], r.streams[0]
			a := zeros[float32](t, c.Device(), 4)
			require.NoError(t, s.LaunchHostFunc(func() error { return errors.New("earlier failure") }))
			require.Error(t, s.Synchronize())
			require.Error(t, s.Err(), "the stream stays failed")
			if end == "destroyed" {
				require.NoError(t, c.Destroy())
			} else {
				require.NoError(t, c.Abort())
			}
			err := collective.AllReduce(c, s, a, a, collective.Sum)
			require.Error(t, err)
			assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
			assert.ErrorContains(t, err, "was "+end)
			assert.NotContains(t, err.Error(), "earlier failure")
		})
	}
}

// A stream of another device than the rank's is named once, by ordinal,
// as is the rank's device.
func TestWrongDeviceMessage(t *testing.T) {
	r := newRanks(t, 2)
	c := r.comms[0]
	a := zeros[float32](t, c.Device(), 4)
	err := collective.AllReduce(c, r.streams[1], a, a, collective.Sum)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	msg := err.Error()
	assert.Contains(t, msg, "the stream is on device 1, rank 0 of 2 is on device 0")
	assert.Equal(t, 1, strings.Count(msg, "device 0"), msg)
	assert.Equal(t, 1, strings.Count(msg, "device 1"), msg)
}
