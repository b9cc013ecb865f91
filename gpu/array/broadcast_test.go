package array

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/hipgo/hipgo/gpu"
)

// bcastIndex is where an operand of shape in is read for the element of
// out (a broadcast shape) at flat index i: NumPy's rule, in plain Go.
func bcastIndex(out, in []int, i int) int {
	idx := make([]int, len(out))
	for k := len(out) - 1; k >= 0; k-- {
		idx[k] = i % out[k]
		i /= out[k]
	}
	j, off := 0, len(out)-len(in)
	for k, d := range in {
		x := idx[off+k]
		if d == 1 {
			x = 0
		}
		j = j*d + x
	}
	return j
}

func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// The pairs of shapes the tests broadcast, and the result's shape.
var bcastCases = []struct{ a, b, out []int }{
	{[]int{7, 300}, []int{300}, []int{7, 300}},
	{[]int{7, 300}, []int{7, 1}, []int{7, 300}},
	{[]int{7, 1}, []int{300}, []int{7, 300}},
	{[]int{300}, []int{7, 1}, []int{7, 300}},
	{[]int{}, []int{5, 4}, []int{5, 4}},
	{[]int{1}, []int{6}, []int{6}},
	{[]int{2, 3, 4}, []int{3, 4}, []int{2, 3, 4}},
	{[]int{2, 1, 1}, []int{3, 4}, []int{2, 3, 4}},
	{[]int{0, 3}, []int{3}, []int{0, 3}},
}

func testBroadcast(t *testing.T) {
	s := newStream(t)
	r := rand.New(rand.NewPCG(3, 49))
	type binop struct {
		name string
		f    func(a, b *Array[float64]) (*Array[float64], error)
		g    func(x, y float64) float64
	}
	ops := []binop{
		{"Add", Add[float64], func(x, y float64) float64 { return x + y }},
		{"Sub", Sub[float64], func(x, y float64) float64 { return x - y }},
		{"Mul", Mul[float64], func(x, y float64) float64 { return x * y }},
		{"Div", Div[float64], func(x, y float64) float64 { return x / y }},
		{"Minimum", Minimum[float64], func(x, y float64) float64 { return min(x, y) }},
		{"Maximum", Maximum[float64], func(x, y float64) float64 { return max(x, y) }},
	}
	for _, c := range bcastCases {
		ha, hb := make([]float64, sizeOf(c.a)), make([]float64, sizeOf(c.b))
		for i := range ha {
			ha[i] = r.NormFloat64()
		}
		for i := range hb {
			hb[i] = r.NormFloat64() + 3
		}
		a, b := mustFrom(t, s, ha, c.a...), mustFrom(t, s, hb, c.b...)
		what := fmt.Sprintf("%v with %v", c.a, c.b)
		for _, op := range ops {
			got, err := op.f(a, b)
			require.NoError(t, err, "%s %s", op.name, what)
			assert.Equal(t, c.out, got.Shape(), "%s %s", op.name, what)
			h, err := got.ToSlice()
			require.NoError(t, err)
			require.Len(t, h, sizeOf(c.out))
			for i := range h {
				want := op.g(ha[bcastIndex(c.out, c.a, i)], hb[bcastIndex(c.out, c.b, i)])
				if !assert.Equal(t, want, h[i], "%s %s element %d", op.name, what, i) {
					break
				}
			}
			require.NoError(t, got.Free())
		}
		// Comparisons broadcast too, into masks.
		lt, err := Less(a, b)
		require.NoError(t, err, what)
		assert.Equal(t, c.out, lt.Shape())
		m, err := lt.ToSlice()
		require.NoError(t, err)
		for i := range m {
			want := uint8(0)
			if ha[bcastIndex(c.out, c.a, i)] < hb[bcastIndex(c.out, c.b, i)] {
				want = 1
			}
			if !assert.Equal(t, want, m[i], "Less %s element %d", what, i) {
				break
			}
		}
		require.NoError(t, lt.Free())
	}

	// Integers: a column of divisors against a row (C's truncation).
	col := mustFrom(t, s, []int32{1, -2, 3}, 3, 1)
	row := mustFrom(t, s, []int32{7, -8, 9, 10}, 4)
	q, err := Div(row, col)
	require.NoError(t, err)
	got, err := q.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{7, -8, 9, 10, -3, 4, -4, -5, 2, -2, 3, 3}, got)
	assert.Equal(t, []int{3, 4}, q.Shape())
	require.NoError(t, q.Free())
}

// Add, Sub, Mul, Div, Minimum, Maximum and the comparisons broadcast as
// NumPy does, with the operands read in place, in the cpu agent's launch
// shape and a GPU's; the same shapes keep gpu/prim's Transform2.
func TestBroadcastArithmetic(t *testing.T) {
	testBroadcast(t)
	forceGPUShape = true
	defer func() { forceGPUShape = false }()
	t.Run("gpu-shape", testBroadcast)
}

// A row vector added to every row of a matrix is gonum's M + 1·rᵀ.
func TestBroadcastGonum(t *testing.T) {
	s := newStream(t)
	r := rand.New(rand.NewPCG(4, 49))
	const rows, cols = 50, 37
	m := mat.NewDense(rows, cols, nil)
	v := mat.NewVecDense(cols, nil)
	ones := mat.NewVecDense(rows, nil)
	for i := range rows {
		ones.SetVec(i, 1)
		for j := range cols {
			m.Set(i, j, r.NormFloat64())
		}
	}
	for j := range cols {
		v.SetVec(j, r.NormFloat64())
	}
	var want mat.Dense
	want.Outer(1, ones, v)
	want.Add(m, &want)

	am, err := FromDense(s, m)
	require.NoError(t, err)
	defer am.Free()
	av, err := FromVecDense(s, v)
	require.NoError(t, err)
	defer av.Free()
	sum, err := Add(am, av)
	require.NoError(t, err)
	defer sum.Free()
	got, err := ToDense(sum)
	require.NoError(t, err)
	assert.True(t, mat.Equal(&want, got), "M + row vector")
}

// Shapes that do not broadcast are a *ShapeError naming both, wrapping
// gpu.ErrInvalidValue, and nothing is queued.
func TestBroadcastErrors(t *testing.T) {
	s := newStream(t)
	a := mustFrom(t, s, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	for _, shape := range [][]int{{2}, {3, 2}, {4, 3}} {
		b := mustFrom(t, s, make([]float32, sizeOf(shape)), shape...)
		for name, f := range map[string]func() error{
			"Add":  func() error { _, err := Add(a, b); return err },
			"Div":  func() error { _, err := Div(b, a); return err },
			"Less": func() error { _, err := Less(a, b); return err },
		} {
			err := f()
			var se *ShapeError
			require.ErrorAs(t, err, &se, "%s %v", name, shape)
			assert.ErrorIs(t, err, gpu.ErrInvalidValue)
			assert.Contains(t, err.Error(), "(2, 3)", name)
		}
	}
	// Stretched along two separate groups of axes: not yet.
	_, err := Add(mustFrom(t, s, make([]float32, 15), 3, 1, 5), mustFrom(t, s, make([]float32, 60), 3, 4, 5))
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	got, err := a.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, got, "nothing ran")
}
