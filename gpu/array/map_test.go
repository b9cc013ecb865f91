package array

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The test's functors: one to four operands, mixed types.
type (
	softplus  struct{}
	axpyClip  struct{}
	fma3      struct{}
	dist4     struct{}
	widen     struct{}
	withField struct{ k float32 }
)

func (softplus) Apply(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log1p(math.Exp(float64(x))))
}

func (axpyClip) Apply(x, y float32) float32 { return min(max(2*x+y, -1), 1) }

func (fma3) Apply(a float64, x float32, y int32) float64 { return a*float64(x) + float64(y) }

func (dist4) Apply(x0, y0, x1, y1 float32) float32 {
	dx, dy := x1-x0, y1-y0
	return dx*dx + dy*dy
}

func (widen) Apply(x int32) int64 { return int64(x) << 33 }

func (w withField) Apply(x float32) float32 { return x * w.k }

// cpuAgent skips a test that runs the test's functors on a GPU: go
// generate reads no test files, so they have kernels only on the cpu
// agent; examples/fuse runs generated ones on GPUs.
func cpuAgent(t testing.TB, dev *gpu.Device) {
	if !dev.Properties().IsCPU {
		t.Skip("the test's functors have no generated kernels on a GPU (examples/fuse runs generated ones)")
	}
}

func fromSlice[T Number](t *testing.T, s *stream.Stream, v []T, shape ...int) *Array[T] {
	a, err := FromSlice(s, v, shape...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Free() })
	return a
}

func toSlice[T Number](t *testing.T, a *Array[T]) []T {
	v, err := a.ToSlice()
	require.NoError(t, err)
	return v
}

// Map1..Map4 on the cpu agent (Apply called from Go, no generated code)
// give what a Go loop over the same Apply gives, at sizes across the
// cpu agent's spans.
func TestMapMatchesGo(t *testing.T) {
	s := newStream(t)
	cpuAgent(t, s.Device())
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range sizes {
		x, y := values[float32](r, n), values[float32](r, n)
		z, w := values[float32](r, n), values[float32](r, n)
		a64, i32 := values[float64](r, n), values[int32](r, n)
		ax, ay, az, aw := fromSlice(t, s, x), fromSlice(t, s, y), fromSlice(t, s, z), fromSlice(t, s, w)
		a1, err := Map1(softplus{}, ax)
		require.NoError(t, err)
		a2, err := Map2(axpyClip{}, ax, ay)
		require.NoError(t, err)
		a3, err := Map3(fma3{}, fromSlice(t, s, a64), ax, fromSlice(t, s, i32))
		require.NoError(t, err)
		a4, err := Map4(dist4{}, ax, ay, az, aw)
		require.NoError(t, err)
		aw2, err := Map1[widen, int64](widen{}, fromSlice(t, s, i32))
		require.NoError(t, err)
		w1, w2, w3 := make([]float32, n), make([]float32, n), make([]float64, n)
		w4, w5 := make([]float32, n), make([]int64, n)
		for i := range n {
			w1[i], w2[i] = softplus{}.Apply(x[i]), axpyClip{}.Apply(x[i], y[i])
			w3[i], w4[i] = fma3{}.Apply(a64[i], x[i], i32[i]), dist4{}.Apply(x[i], y[i], z[i], w[i])
			w5[i] = widen{}.Apply(i32[i])
		}
		assert.Equal(t, w1, toSlice(t, a1), "softplus n=%d", n)
		assert.Equal(t, w2, toSlice(t, a2), "axpyClip n=%d", n)
		assert.Equal(t, w3, toSlice(t, a3), "fma3 n=%d", n)
		assert.Equal(t, w4, toSlice(t, a4), "dist4 n=%d", n)
		assert.Equal(t, w5, toSlice(t, aw2), "widen n=%d", n)
		assert.Equal(t, []int{n}, a4.Shape())
		for _, a := range []*Array[float32]{a1, a2, a4} {
			require.NoError(t, a.Free())
		}
		require.NoError(t, a3.Free())
		require.NoError(t, aw2.Free())
	}
}

// Inputs broadcast as NumPy's do: a scalar, a row, a column, a
// missing leading axis.
func TestMapBroadcast(t *testing.T) {
	s := newStream(t)
	cpuAgent(t, s.Device())
	const rows, cols = 7, 300
	r := rand.New(rand.NewPCG(3, 4))
	m := values[float32](r, rows*cols)
	row, col, one := values[float32](r, cols), values[float32](r, rows), []float32{0.25}
	am := fromSlice(t, s, m, rows, cols)
	for _, tc := range []struct {
		name  string
		b     *Array[float32]
		b2    func(i, j int) float32
		swap  bool
		shape []int
	}{
		{"scalar", fromSlice(t, s, one), func(i, j int) float32 { return one[0] }, false, []int{rows, cols}},
		{"0-d", fromSlice(t, s, one, []int{}...), func(i, j int) float32 { return one[0] }, false, []int{rows, cols}},
		{"row", fromSlice(t, s, row), func(i, j int) float32 { return row[j] }, false, []int{rows, cols}},
		{"row (1, cols)", fromSlice(t, s, row, 1, cols), func(i, j int) float32 { return row[j] }, true, []int{rows, cols}},
		{"column", fromSlice(t, s, col, rows, 1), func(i, j int) float32 { return col[i] }, false, []int{rows, cols}},
		{"column first", fromSlice(t, s, col, rows, 1), func(i, j int) float32 { return col[i] }, true, []int{rows, cols}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := am, tc.b
			var out *Array[float32]
			var err error
			if tc.swap {
				out, err = Map2(axpyClip{}, b, a)
			} else {
				out, err = Map2(axpyClip{}, a, b)
			}
			require.NoError(t, err)
			defer out.Free()
			assert.Equal(t, tc.shape, out.Shape())
			got := toSlice(t, out)
			for i := range rows {
				for j := range cols {
					want := axpyClip{}.Apply(m[i*cols+j], tc.b2(i, j))
					if tc.swap {
						want = axpyClip{}.Apply(tc.b2(i, j), m[i*cols+j])
					}
					require.Equal(t, want, got[i*cols+j], "(%d, %d)", i, j)
				}
			}
		})
	}
	// (rows, 1) with (cols,) is (rows, cols): both broadcast.
	out, err := Map2(axpyClip{}, fromSlice(t, s, col, rows, 1), fromSlice(t, s, row))
	require.NoError(t, err)
	got := toSlice(t, out)
	require.NoError(t, out.Free())
	for i := range rows {
		for j := range cols {
			require.Equal(t, axpyClip{}.Apply(col[i], row[j]), got[i*cols+j])
		}
	}
}

// Bad calls are errors and queue nothing: shapes that do not broadcast,
// a broadcast along two groups of axes, a functor with fields, a nil or
// freed array, operands on two devices' streams.
func TestMapErrors(t *testing.T) {
	s := newStream(t)
	a := fromSlice(t, s, make([]float32, 6), 2, 3)
	b := fromSlice(t, s, make([]float32, 4), 4)
	_, err := Map2(axpyClip{}, a, b)
	var se *ShapeError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	c := fromSlice(t, s, make([]float32, 2*4*3*5), 2, 4, 3, 5)
	d := fromSlice(t, s, make([]float32, 2*3), 2, 1, 3, 1)
	_, err = Map2(axpyClip{}, c, d)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "two separate groups of axes")

	_, err = Map1(withField{k: 2}, a)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "has fields")

	_, err = Map2(axpyClip{}, a, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	f := fromSlice(t, s, make([]float32, 6), 2, 3)
	require.NoError(t, f.Free())
	_, err = Map2(axpyClip{}, a, f)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	// Without the generated kernel (as on a GPU before go generate): an
	// error naming what to run.
	cpuFallback = false
	type unseen struct{ axpyClip }
	_, err = Map2(unseen{}, a, a)
	cpuFallback = true
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "go generate")
	assert.ErrorContains(t, err, "unseen, float32, float32, float32")

	// An empty result launches nothing.
	cpuAgent(t, s.Device())
	e := fromSlice(t, s, []float32{}, 0, 3)
	out, err := Map2(axpyClip{}, e, fromSlice(t, s, make([]float32, 3)))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 3}, out.Shape())
	require.NoError(t, out.Free())
}

// A registered launcher is what a call runs, on any agent; the cpu
// agent's own kernel is used only where none is registered.
func TestMapRegistry(t *testing.T) {
	type marked struct{ softplus }
	s := newStream(t)
	a := fromSlice(t, s, []float32{1, 2, 3})
	calls := 0
	RegisterMap1[marked](func(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, out buffer.Array[float32], x1 buffer.Array[float32], d1, m1, span int) error {
		calls++
		assert.Equal(t, 0, d1)
		return nil
	})
	out, err := Map1(marked{}, a)
	require.NoError(t, err)
	require.NoError(t, out.Free())
	assert.Equal(t, 1, calls)
	assert.Panics(t, func() {
		RegisterMap1[marked](func(*stream.Stream, gpu.Dim3, gpu.Dim3, int, buffer.Array[float32], buffer.Array[float32], int, int, int) error {
			return nil
		})
	})
}
