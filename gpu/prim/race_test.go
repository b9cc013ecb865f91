package prim

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// racingCalls runs a mix of primitives (with temporaries and without) on
// s over in and out until one fails, and returns the first error.
func racingCalls(s *stream.Stream, in, out *buffer.Buffer[float32], u, uo *buffer.Buffer[uint32]) error {
	for range 200 {
		for _, err := range []error{
			Sum(s, in, out),
			InclusiveSum(s, in, out),
			SortKeys(s, u, uo, SortOrder{}),
			MergeSortKeys(s, in, out, TotalAscending),
			Transform(s, in, out, Neg, 0),
		} {
			if err != nil {
				return err
			}
		}
	}
	return s.Synchronize()
}

// Calls racing a Free of their buffers or a Destroy of their stream
// return nil or an error with its code, and never panic or hang; the
// stream's temporaries go with it.
func TestRaceFreeDestroy(t *testing.T) {
	dev := gputest.Device(t)
	const n = 20000
	for i := range 6 {
		s, err := stream.New(dev)
		require.NoError(t, err)
		in, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		out, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		u, err := buffer.New[uint32](dev, n)
		require.NoError(t, err)
		uo, err := buffer.New[uint32](dev, n)
		require.NoError(t, err)
		var wg sync.WaitGroup
		var callErr, raceErr error
		wg.Go(func() { callErr = racingCalls(s, in, out, u, uo) })
		wg.Go(func() {
			switch i % 3 {
			case 0:
				raceErr = in.Free()
			case 1:
				raceErr = uo.Free()
			default:
				raceErr = s.Destroy()
			}
		})
		wg.Wait()
		gputest.Released(t, callErr, "the calls")
		gputest.Released(t, raceErr, "the free or destroy")
		_ = s.Destroy()
		for _, b := range []interface{ Free() error }{in, out, u, uo} {
			_ = b.Free()
		}
	}
}

// Calls racing gpu.Shutdown return nil or an error with its code, and
// the runtime opens again after it.
func TestRaceShutdown(t *testing.T) {
	const n = 20000
	for range 3 {
		dev, err := gpu.Default()
		require.NoError(t, err)
		s, err := stream.New(dev)
		require.NoError(t, err)
		in, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		out, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		u, err := buffer.New[uint32](dev, n)
		require.NoError(t, err)
		uo, err := buffer.New[uint32](dev, n)
		require.NoError(t, err)
		var wg sync.WaitGroup
		var callErr error
		wg.Go(func() { callErr = racingCalls(s, in, out, u, uo) })
		wg.Go(func() { _ = gpu.Shutdown() })
		wg.Wait()
		gputest.Released(t, callErr, "the calls")
		gputest.Released(t, racingCalls(s, in, out, u, uo), "calls after shutdown")
	}
}
