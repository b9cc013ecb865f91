package blas_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// fixture is one test's device, stream and handle, on the default device
// (the cpu agent unless HIPGO_DRIVER picks a GPU).
type fixture struct {
	t   *testing.T
	dev *gpu.Device
	s   *stream.Stream
	h   *blas.Handle
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	h, err := blas.New(s)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, h.Destroy())
		assert.NoError(t, s.Destroy())
	})
	return &fixture{t: t, dev: dev, s: s, h: h}
}

// upload makes a device buffer holding v, freed when the test ends.
func upload[T blas.Float](f *fixture, v []T) *buffer.Buffer[T] {
	f.t.Helper()
	b, err := buffer.FromSlice(f.dev, v)
	require.NoError(f.t, err)
	f.t.Cleanup(func() { assert.NoError(f.t, b.Free()) })
	return b
}

// download waits for the stream and returns b's contents.
func download[T blas.Float](f *fixture, b *buffer.Buffer[T]) []T {
	f.t.Helper()
	require.NoError(f.t, f.s.Synchronize())
	v, err := b.ToSlice()
	require.NoError(f.t, err)
	return v
}

func random[T blas.Float](r *rand.Rand, n int) []T {
	v := make([]T, n)
	for i := range v {
		v[i] = T(2*r.Float64() - 1)
	}
	return v
}

// tol is the absolute tolerance for results of sums of k products of
// numbers in [-1, 1].
func tol[T blas.Float](k int) float64 {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return 1e-5 * float64(k+1)
	}
	return 1e-12 * float64(k+1)
}

func assertClose[T blas.Float](t *testing.T, want, got []T, delta float64, msgAndArgs ...any) {
	t.Helper()
	w, g := make([]float64, len(want)), make([]float64, len(got))
	for i := range want {
		w[i] = float64(want[i])
	}
	for i := range got {
		g[i] = float64(got[i])
	}
	assert.InDeltaSlice(t, w, g, delta, msgAndArgs...)
}
