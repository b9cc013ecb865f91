package array

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// racingMaps runs Map1..Map4 (broadcasting too) on a until one fails,
// freeing what they make, and returns the first error.
func racingMaps(a, row *Array[float32]) error {
	for range 50 {
		for _, f := range []func() (*Array[float32], error){
			func() (*Array[float32], error) { return Map1(softplus{}, a) },
			func() (*Array[float32], error) { return Map2(axpyClip{}, a, row) },
			func() (*Array[float32], error) { return Map4(dist4{}, a, a, row, a) },
		} {
			r, err := f()
			if err != nil {
				return err
			}
			_ = r.Free()
		}
	}
	return a.Stream().Synchronize()
}

// Map racing a Free of its array, a Free of the buffer under it, a
// Destroy of its stream and gpu.Shutdown returns nil or a
// released-object error, and never panics or hangs.
func TestMapRaceRelease(t *testing.T) {
	t.Cleanup(func() { _ = gpu.Shutdown() })
	const rows, cols = 40, 500
	for i := range 8 {
		dev, err := gpu.Default()
		require.NoError(t, err)
		cpuAgent(t, dev)
		s, err := stream.New(dev)
		require.NoError(t, err)
		b, err := buffer.New[float32](dev, rows*cols)
		require.NoError(t, err)
		require.NoError(t, b.CopyFrom(make([]float32, rows*cols)))
		a, err := FromBuffer(s, b, rows, cols)
		require.NoError(t, err)
		row, err := Arange[float32](s, cols)
		require.NoError(t, err)
		var wg sync.WaitGroup
		var opErr, relErr error
		wg.Go(func() { opErr = racingMaps(a, row) })
		wg.Go(func() {
			switch i % 4 {
			case 0:
				relErr = row.Free()
			case 1:
				relErr = b.Free()
			case 2:
				relErr = s.Destroy()
			default:
				relErr = gpu.Shutdown()
			}
		})
		wg.Wait()
		gputest.Released(t, opErr, "the operations")
		gputest.Released(t, relErr, "the release")
		gputest.Released(t, racingMaps(a, row), "operations after the release")
		_ = row.Free()
		_ = b.Free()
		_ = s.Destroy()
	}
}
