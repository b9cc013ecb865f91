package prim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// The GPU's shapes of Reduce, ArgMin/ArgMax and Transform on the cpu
// agent, warps as coroutines: the one-launch block, the two passes (one
// wave of blocks striding over turns of four loads per work-item), the
// vector loads (buffers on a 16-byte boundary) and the scalar ones (a
// view that is not), and the elements after the last whole vector.

// shapeSizes are the sizes of those tests: around a turn of a block
// (256 work-items, four loads each of 1, 2 or 4 elements), a partial
// last turn, and a few turns of a small grid. Under the race detector
// every work-item's access is tracked: fewer and smaller.
func shapeSizes() []int {
	if raceflag.Enabled {
		return []int{1, 7, 1029, 4099, 9003}
	}
	return []int{1, 7, 1029, 4099, 9003, 20483}
}

// withTwoPasses runs f with the GPU's shapes, inputs over 600 elements
// in two passes, and the one-block launches in blocks of 64.
func withTwoPasses(t *testing.T, f func()) {
	defer func(n, b int) { oneLaunchN, oneBlock = n, b }(oneLaunchN, oneBlock)
	oneLaunchN, oneBlock = 600, 64
	withGPUShape(t, f)
}

// views are in itself and a view of it one element in: the vector loads
// and the scalar ones.
func views[T any](t *testing.T, b *buffer.Buffer[T]) map[string]buffer.Array[T] {
	if b.Len() < 2 {
		return map[string]buffer.Array[T]{"aligned": b}
	}
	v := b.Sub(1, b.Len()-1)
	require.NoError(t, v.Err())
	return map[string]buffer.Array[T]{"aligned": b, "offset": v}
}

func testReduceShapes[T Number](t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(7, 7))
	lo, hi := limits[T]()
	for _, n := range shapeSizes() {
		h := random[T](r, n)
		in := upload(t, dev, h)
		out := upload(t, dev, []T{0})
		idx := upload(t, dev, []int64{0})
		for name, v := range views(t, in) {
			x := h
			if name == "offset" {
				x = h[1:]
			}
			var sum T
			mn, mx, imn, imx := hi, lo, int64(-1), int64(-1)
			for i, e := range x {
				sum += e
				if e < mn || imn < 0 {
					mn, imn = e, int64(i)
				}
				if e > mx || imx < 0 {
					mx, imx = e, int64(i)
				}
			}
			require.NoError(t, Sum(s, v, out))
			near(t, sum, download(t, s, out)[0], float64(len(x))*1e6, "sum %s n=%d", name, n)
			require.NoError(t, Min(s, v, out))
			assert.Equal(t, mn, download(t, s, out)[0], "min %s n=%d", name, n)
			require.NoError(t, Max(s, v, out))
			assert.Equal(t, mx, download(t, s, out)[0], "max %s n=%d", name, n)
			require.NoError(t, ArgMin(s, v, out, idx))
			assert.Equal(t, imn, download(t, s, idx)[0], "argmin %s n=%d", name, n)
			assert.Equal(t, mn, download(t, s, out)[0], "argmin's value %s n=%d", name, n)
			require.NoError(t, ArgMax(s, v, out, idx))
			assert.Equal(t, imx, download(t, s, idx)[0], "argmax %s n=%d", name, n)
		}
	}
}

func TestReduceShapes(t *testing.T) {
	withTwoPasses(t, func() {
		// A type of each vector width; more without the race detector.
		t.Run("float32", func(t *testing.T) { testReduceShapes[float32](t) })
		t.Run("uint64", func(t *testing.T) { testReduceShapes[uint64](t) })
		if !raceflag.Enabled {
			t.Run("int32", func(t *testing.T) { testReduceShapes[int32](t) })
			t.Run("float64", func(t *testing.T) { testReduceShapes[float64](t) })
		}
	})
}

// Ties go to the lowest index, as CUB's and NumPy's do, whichever
// work-item, vector or pass holds the equal values.
func TestArgTiesShapes(t *testing.T) {
	n := 9003
	if !raceflag.Enabled {
		n = 20483
	}
	check := func(t *testing.T) {
		dev, s := newStream(t)
		// Every element equal: index 0.
		h := make([]float32, n)
		in, out, idx := upload(t, dev, h), upload(t, dev, []float32{1}), upload(t, dev, []int64{7})
		for _, f := range []func() error{
			func() error { return ArgMin(s, in, out, idx) },
			func() error { return ArgMax(s, in, out, idx) },
		} {
			require.NoError(t, f())
			assert.Equal(t, int64(0), download(t, s, idx)[0])
		}
		// The least and greatest values several times each: twice in
		// one vector, in other work-items' (the first in a later lane
		// than another), in the last turn.
		for i := range h {
			h[i] = float32(i % 97)
		}
		for _, i := range []int{n - 5, 4*256 + 2, 4*256 + 3, 4001, 21} {
			h[i] = -3
		}
		for _, i := range []int{n - 1, 9, 4*256*4 + 1} {
			h[i] = 500
		}
		in = upload(t, dev, h)
		require.NoError(t, ArgMin(s, in, out, idx))
		assert.Equal(t, int64(21), download(t, s, idx)[0])
		require.NoError(t, ArgMax(s, in, out, idx))
		assert.Equal(t, int64(9), download(t, s, idx)[0])
		hd := make([]float64, n)
		for i := range hd {
			hd[i] = float64(h[i])
		}
		ind, outd := upload(t, dev, hd), upload(t, dev, []float64{0})
		require.NoError(t, ArgMin(s, ind, outd, idx))
		assert.Equal(t, int64(21), download(t, s, idx)[0], "float64")
		require.NoError(t, ArgMax(s, ind, outd, idx))
		assert.Equal(t, int64(9), download(t, s, idx)[0], "float64")
	}
	t.Run("cpu-shape", check)
	withTwoPasses(t, func() { t.Run("gpu-shape", check) })
}

func testTransformShapes[T Number](t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range shapeSizes() {
		x, y := random[T](r, n), random[T](r, n)
		bx, by := upload(t, dev, x), upload(t, dev, y)
		out := upload(t, dev, make([]T, n))
		vx, vy, vo := views(t, bx), views(t, by), views(t, out)
		for _, name := range []string{"aligned", "offset"} {
			if vx[name] == nil {
				continue
			}
			xs, ys := x, y
			if name == "offset" {
				xs, ys = x[1:], y[1:]
			}
			require.NoError(t, Transform(s, vx[name], vo[name], AddScalar, 3))
			got := download(t, s, out)
			if name == "offset" {
				got = got[1:]
			}
			for i := range xs {
				if got[i] != xs[i]+3 {
					t.Fatalf("%s n=%d: out[%d] = %v, want %v", name, n, i, got[i], xs[i]+3)
				}
			}
			require.NoError(t, Transform2(s, vx[name], vy[name], vo[name], Sub))
			got = download(t, s, out)
			if name == "offset" {
				got = got[1:]
			}
			for i := range xs {
				if got[i] != xs[i]-ys[i] {
					t.Fatalf("%s n=%d: out[%d] = %v, want %v", name, n, i, got[i], xs[i]-ys[i])
				}
			}
		}
		// In place, and an aligned output beside an offset input.
		require.NoError(t, Transform(s, bx, bx, Scale, 2))
		got := download(t, s, bx)
		for i := range x {
			require.Equal(t, 2*x[i], got[i], "in place n=%d i=%d", n, i)
		}
		if n > 1 {
			o := upload(t, dev, make([]T, n-1))
			require.NoError(t, Transform(s, vx["offset"], o, Neg, 0))
			got := download(t, s, o)
			for i := range got {
				require.Equal(t, -(x[i+1] + x[i+1]), got[i], "offset input n=%d i=%d", n, i)
			}
		}
	}
}

func TestTransformShapes(t *testing.T) {
	withGPUShape(t, func() {
		t.Run("int32", func(t *testing.T) { testTransformShapes[int32](t) })
		t.Run("float64", func(t *testing.T) { testTransformShapes[float64](t) })
	})
}

// Integer bins of a power-of-two width count without a division; levels
// that do not fit the sample type are refused and queue nothing.
func TestHistogramShift(t *testing.T) {
	sz := []int{0, 1, 255, 257, 3000, 8193}
	if !raceflag.Enabled {
		sz = append(sz, 70001)
	}
	for _, shape := range []string{"cpu", "gpu"} {
		run := func(f func()) { f() }
		if shape == "gpu" {
			run = func(f func()) { withGPUShape(t, f) }
		}
		run(func() {
			t.Run(shape+"/uint16/256", func(t *testing.T) { testHistogram[uint16](t, sz, 0, 1<<16, 256) })
			t.Run(shape+"/int32/64", func(t *testing.T) { testHistogram[int32](t, sz, -128, 128, 64) })
			t.Run(shape+"/uint8/16", func(t *testing.T) { testHistogram[uint8](t, sz, 32, 96, 16) })
			t.Run(shape+"/uint32/2", func(t *testing.T) { testHistogram[uint32](t, sz, 0, 1<<32, 2) })
		})
	}
	// All samples in one bin: every work-item counts into one place.
	withGPUShape(t, func() {
		dev, s := newStream(t)
		h := make([]uint8, 5000)
		for i := range h {
			h[i] = 200
		}
		hist := upload(t, dev, make([]uint32, 256))
		require.NoError(t, HistogramEven(s, upload(t, dev, h), hist, 0, 256))
		got := download(t, s, hist)
		assert.Equal(t, uint32(5000), got[200])
	})
}
