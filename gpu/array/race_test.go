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

// racingOps runs array operations (with gpu/prim's temporaries and
// without) on a until one fails, freeing what they make, and returns the
// first error.
func racingOps(a *Array[float32]) error {
	ops := []func(*Array[float32]) (*Array[float32], error){
		Sum[float32], Cumsum[float32], Sort[float32], Neg[float32],
		func(a *Array[float32]) (*Array[float32], error) { return Add(a, a) },
	}
	for range 100 {
		for _, op := range ops {
			r, err := op(a)
			if err != nil {
				return err
			}
			_ = r.Free()
		}
	}
	return a.Stream().Synchronize()
}

// Operations racing a Free of their array, a Free of the buffer under
// it, a Destroy of their stream and gpu.Shutdown return nil or a
// released-object error, and never panic or hang (go test -race: the
// race detector finds no race either). The runtime is the process's
// (not gputest's): what the racing operations make after a Destroy or a
// Shutdown cannot be freed, and the test shuts the runtime down after.
func TestRaceRelease(t *testing.T) {
	t.Cleanup(func() { _ = gpu.Shutdown() })
	const n = 20000
	for i := range 8 {
		dev, err := gpu.Default()
		require.NoError(t, err)
		s, err := stream.New(dev)
		require.NoError(t, err)
		b, err := buffer.New[float32](dev, n)
		require.NoError(t, err)
		require.NoError(t, b.CopyFrom(make([]float32, n)))
		a, err := FromBuffer(s, b)
		require.NoError(t, err)
		owned, err := Arange[float32](s, n)
		require.NoError(t, err)
		target := a
		if i%4 == 0 {
			target = owned
		}
		var wg sync.WaitGroup
		var opErr, relErr error
		wg.Go(func() { opErr = racingOps(target) })
		wg.Go(func() {
			switch i % 4 {
			case 0:
				relErr = owned.Free()
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
		gputest.Released(t, racingOps(target), "operations after the release")
		_ = owned.Free()
		_ = b.Free()
		_ = s.Destroy()
	}
}
