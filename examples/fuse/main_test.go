package main

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestFuse(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

// On the default device: a GPU where there is one (the generated
// kernels' PTX or code objects), else the cpu agent.
func TestFuseDefaultDevice(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}

// The generated kernels with a GPU's launch shapes (blocks of 256 and
// 1024 work-items, grid-stride loops, warp shuffles and shared memory in
// the reduction), on the cpu agent too, where calls use blocks of one.
func TestGeneratedKernelsGPUShapes(t *testing.T) {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	const n = 5000
	x, y, d := make([]float32, n), make([]float32, n), make([]float64, n)
	var far float64
	for i := range n {
		x[i], y[i] = float32(i%97)/10-4, float32(i%13)/13
		d[i] = float64((i*7919)%n) / 3
		far = max(far, d[i])
	}
	bx, by, ba := upload(t, dev, x), upload(t, dev, y), upload(t, dev, []float32{0.5})
	out := upload(t, dev, make([]float32, n))
	require.NoError(t, launchhipgoMap3AxpyClipFloat32Float32Float32Float32(s, gpu.D1(3), gpu.D1(256), 0, out, ba, 1, 1, bx, 0, n, by, 0, n, 0))
	bd, tmp, res := upload(t, dev, d), upload(t, dev, make([]float64, 4)), upload(t, dev, []float64{-1})
	require.NoError(t, launchhipgoReduceFarthestFloat64(s, gpu.D1(4), gpu.D1(256), 0, bd, tmp, 0))
	require.NoError(t, launchhipgoReduceFarthestFloat64(s, gpu.D1(1), gpu.D1(1024), 0, tmp, res, 0))
	require.NoError(t, s.Synchronize())
	got := make([]float32, n)
	require.NoError(t, out.CopyTo(got))
	for i := range n {
		assert.InDelta(t, axpyClip{}.Apply(0.5, x[i], y[i]), got[i], 1e-6, "element %d", i)
	}
	gotFar := make([]float64, 1)
	require.NoError(t, res.CopyTo(gotFar))
	assert.Equal(t, far, gotFar[0])

	// The running maximum: one block of 256 over three tiles of 1792
	// (seven float64 a work-item), and the same in three passes (each
	// tile's maximum, their exclusive scan, each tile from its offset).
	const tile = 256 * 7
	wantRun := make([]float64, n)
	run := 0.0
	for i, v := range d {
		run = max(run, v)
		wantRun[i] = run
	}
	one := upload(t, dev, make([]float64, n))
	require.NoError(t, launchhipgoScanFarthestFloat64(s, gpu.D1(1), gpu.D1(256), tile*8, bd, one, one, 0, false, tile, 3))
	tiles := (n + tile - 1) / tile
	sums, offs, three := upload(t, dev, make([]float64, tiles)), upload(t, dev, make([]float64, tiles)), upload(t, dev, make([]float64, n))
	require.NoError(t, launchhipgoScanFarthestFloat64(s, gpu.D1(uint32(tiles)), gpu.D1(256), tile*8, bd, sums, sums, 1, false, tile, 1))
	require.NoError(t, launchhipgoScanFarthestFloat64(s, gpu.D1(1), gpu.D1(256), tile*8, sums, offs, offs, 0, true, tile, 1))
	require.NoError(t, launchhipgoScanFarthestFloat64(s, gpu.D1(uint32(tiles)), gpu.D1(256), tile*8, bd, three, offs, 2, false, tile, 1))
	require.NoError(t, s.Synchronize())
	for _, b := range []*buffer.Buffer[float64]{one, three} {
		got := make([]float64, n)
		require.NoError(t, b.CopyTo(got))
		assert.Equal(t, wantRun, got)
	}

	// The merge sort farthest first: blocks of 256 sort tiles of 1024
	// keys with their indices, then a pass merges pairs of them.
	const mt = 1024
	blocks := (n + mt - 1) / mt
	sorted, merged := upload(t, dev, make([]float64, n)), upload(t, dev, make([]float64, n))
	idx, idx2 := upload(t, dev, make([]uint32, n)), upload(t, dev, make([]uint32, n))
	require.NoError(t, launchhipgoMergeBlockFartherFirstFloat64(s, gpu.D1(uint32(blocks)), gpu.D1(256), 2*mt*8, bd, sorted, idx, true, mt))
	require.NoError(t, launchhipgoMergePassFartherFirstFloat64(s, gpu.D1(uint32(blocks)), gpu.D1(256), 2*mt*8, sorted, merged, idx, idx2, true, n, mt, mt))
	require.NoError(t, s.Synchronize())
	gotK, gotI := make([]float64, n), make([]uint32, n)
	require.NoError(t, merged.CopyTo(gotK))
	require.NoError(t, idx2.CopyTo(gotI))
	for lo := 0; lo < n; lo += 2 * mt {
		hi := min(lo+2*mt, n)
		want := make([]uint32, 0, hi-lo)
		for i := lo; i < hi; i++ {
			want = append(want, uint32(i))
		}
		slices.SortStableFunc(want, func(a, b uint32) int { return cmp.Compare(d[b], d[a]) })
		for k, i := range want {
			assert.Equal(t, i, gotI[lo+k], "run at %d, place %d", lo, k)
			assert.Equal(t, d[i], gotK[lo+k], "run at %d, place %d", lo, k)
		}
	}
}

func upload[T any](t *testing.T, dev *gpu.Device, v []T) *buffer.Buffer[T] {
	b, err := buffer.FromSlice(dev, v)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}
