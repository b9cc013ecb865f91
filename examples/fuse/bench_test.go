package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/array"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// benchN is the benchmarks' size: 2^24 elements (2^16 under -race).
var benchN = func() int {
	if raceflag.Enabled {
		return 1 << 16
	}
	return 1 << 24
}()

// benchArrays are a 0-d a and x, y of benchN elements.
func benchArrays(b *testing.B) (s *stream.Stream, a, x, y *array.Array[float32]) {
	dev := gputest.Device(b)
	s, err := stream.New(dev)
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Destroy() })
	a, err = array.Full[float32](s, 0.5)
	require.NoError(b, err)
	x, err = array.Full[float32](s, 1.5, benchN)
	require.NoError(b, err)
	y, err = array.Full[float32](s, -0.25, benchN)
	require.NoError(b, err)
	b.Cleanup(func() { _, _, _ = a.Free(), x.Free(), y.Free() })
	return s, a, x, y
}

// clip(a*x + y, -1, 1) fused: one kernel, three arrays' traffic.
// b.SetBytes counts what the fused kernel moves (x, y read, z written),
// for both benchmarks, so their MB/s compare as speeds. Each iteration
// waits for its work (Synchronize).
func BenchmarkAxpyClipFused(b *testing.B) {
	s, a, x, y := benchArrays(b)
	b.SetBytes(int64(12 * benchN))
	b.ReportAllocs()
	for b.Loop() {
		z, err := array.Map3(axpyClip{}, a, x, y)
		require.NoError(b, err)
		require.NoError(b, z.Free())
		require.NoError(b, s.Synchronize())
	}
}

// The same expression as four array operations: four kernels, each
// result a temporary array.
func BenchmarkAxpyClipUnfused(b *testing.B) {
	s, _, x, y := benchArrays(b)
	b.SetBytes(int64(12 * benchN))
	b.ReportAllocs()
	for b.Loop() {
		ax, err := array.Scale(x, 0.5)
		require.NoError(b, err)
		sum, err := array.Add(ax, y)
		require.NoError(b, err)
		lo, err := array.MaximumScalar(sum, -1)
		require.NoError(b, err)
		z, err := array.MinimumScalar(lo, 1)
		require.NoError(b, err)
		for _, t := range []*array.Array[float32]{ax, sum, lo, z} {
			require.NoError(b, t.Free())
		}
		require.NoError(b, s.Synchronize())
	}
}
