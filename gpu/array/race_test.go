package array

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// freer is an operation's result.
type freer interface{ Free() error }

// racingOps runs array operations (with gpu/prim's temporaries and
// without; the package's own kernels; gpu/blas through the stream's
// handle) on a until one fails, freeing what they make, and returns the
// first error.
func racingOps(a *Array[float32]) error {
	wrap := func(f func(*Array[float32]) (*Array[float32], error)) func(*Array[float32]) (freer, error) {
		return func(a *Array[float32]) (freer, error) { return f(a) }
	}
	mask := func(f func(*Array[float32]) (*Array[uint8], error)) func(*Array[float32]) (freer, error) {
		return func(a *Array[float32]) (freer, error) { return f(a) }
	}
	ops := []func(*Array[float32]) (freer, error){
		wrap(Sum[float32]), wrap(Cumsum[float32]), wrap(Sort[float32]), wrap(Neg[float32]),
		wrap(func(a *Array[float32]) (*Array[float32], error) { return Add(a, a) }),
		mask(func(a *Array[float32]) (*Array[uint8], error) { return Less(a, a) }),
		mask(func(a *Array[float32]) (*Array[uint8], error) { return GreaterScalar(a, 3) }),
		mask(Any[float32]), mask(All[float32]),
		wrap(func(a *Array[float32]) (*Array[float32], error) { return Clip(a, 1, 2) }),
		wrap(AsType[float32, float32]),
		func(a *Array[float32]) (freer, error) { return AsType[int64](a) },
		func(a *Array[float32]) (freer, error) { return CountNonzero(a) },
		wrap(func(a *Array[float32]) (r *Array[float32], err error) {
			m, err := NotEqualScalar(a, 0)
			if err != nil {
				return nil, err
			}
			defer func() { err = errors.Join(err, m.Free()) }()
			return Where(m, a, a)
		}),
		wrap(func(a *Array[float32]) (*Array[float32], error) {
			m, err := a.Slice(0, 64)
			if err != nil {
				return nil, err
			}
			if m, err = m.Reshape(8, 8); err != nil {
				return nil, err
			}
			return MatMulTrans(blas.NoTrans, blas.Trans, m, m)
		}),
	}
	for range 50 {
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
