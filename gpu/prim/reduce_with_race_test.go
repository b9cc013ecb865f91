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

// racingReduceWith runs ReduceWith (one launch and two, through the
// stream's temporaries), and now and then InclusiveScanWith and
// MergeSortWith, until one fails, and returns the first error.
func racingReduceWith(s *stream.Stream, small, large, out *buffer.Buffer[int32]) error {
	for k := range 50 {
		for _, in := range []*buffer.Buffer[int32]{small, large} {
			if err := ReduceWith(s, wrapMul{}, in, out); err != nil {
				return err
			}
			if k%10 != 0 {
				continue
			}
			// The scans and merge sorts with an operation, in place.
			if err := InclusiveScanWith(s, wrapMul{}, in, in); err != nil {
				return err
			}
			if err := MergeSortWith(s, descending{}, in, in); err != nil {
				return err
			}
		}
	}
	return s.Synchronize()
}

// ReduceWith, InclusiveScanWith and MergeSortWith racing a Free of its buffers, a Destroy of its stream or
// gpu.Shutdown returns nil or an error with its code, and never panics
// or hangs; the runtime opens again after a Shutdown, the cpu agent's
// kernel with it.
func TestReduceWithRaceRelease(t *testing.T) {
	t.Cleanup(func() { _ = gpu.Shutdown() })
	for i := range 8 {
		dev, err := gpu.Default()
		require.NoError(t, err)
		cpuAgent(t, dev)
		s, err := stream.New(dev)
		require.NoError(t, err)
		small, err := buffer.New[int32](dev, 1000)
		require.NoError(t, err)
		large, err := buffer.New[int32](dev, 150000)
		require.NoError(t, err)
		out, err := buffer.New[int32](dev, 1)
		require.NoError(t, err)
		var wg sync.WaitGroup
		var callErr, raceErr error
		wg.Go(func() { callErr = racingReduceWith(s, small, large, out) })
		wg.Go(func() {
			switch i % 4 {
			case 0:
				raceErr = large.Free()
			case 1:
				raceErr = out.Free()
			case 2:
				raceErr = s.Destroy()
			default:
				raceErr = gpu.Shutdown()
			}
		})
		wg.Wait()
		gputest.Released(t, callErr, "the calls")
		gputest.Released(t, raceErr, "the release")
		gputest.Released(t, racingReduceWith(s, small, large, out), "calls after the release")
		_ = s.Destroy()
		for _, b := range []*buffer.Buffer[int32]{small, large, out} {
			_ = b.Free()
		}
	}
}
