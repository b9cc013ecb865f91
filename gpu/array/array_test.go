package array

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/exp/constraints"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/stream"
)

// sizes cross gpu/prim's one-launch limits and tile sizes.
var sizes = []int{0, 1, 2, 255, 257, 4097, 11265, 65537, 100003}

func newStream(t testing.TB) *stream.Stream {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return s
}

func values[T Number](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		switch p := any(&out[i]).(type) {
		case *float32:
			*p = float32(r.NormFloat64() * 100)
		case *float64:
			*p = r.NormFloat64() * 1e6
		case *int32:
			*p = int32(r.Uint32()) >> 8
		case *uint32:
			*p = r.Uint32() >> 8
		case *int64:
			*p = int64(r.Uint64()) >> 8
		case *uint64:
			*p = r.Uint64() >> 8
		}
	}
	return out
}

// noZeros replaces zeros (divisors).
func noZeros[T Number](x []T) []T {
	for i := range x {
		if x[i] == 0 {
			x[i] = 3
		}
	}
	return x
}

func mustFrom[T Number](t testing.TB, s *stream.Stream, h []T, shape ...int) *Array[T] {
	a, err := FromSlice(s, h, shape...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Free() })
	return a
}

// result is an operation's two results as one argument.
type result[T Number] struct {
	a   *Array[T]
	err error
}

func res[T Number](a *Array[T], err error) result[T] { return result[T]{a, err} }

func host[T Number](t testing.TB, r result[T]) []T {
	t.Helper()
	a, err := r.a, r.err
	require.NoError(t, err)
	defer a.Free()
	h, err := a.ToSlice()
	require.NoError(t, err)
	return h
}

func item[T Number](t testing.TB, r result[T]) T {
	t.Helper()
	a, err := r.a, r.err
	require.NoError(t, err)
	defer a.Free()
	v, err := a.Item()
	require.NoError(t, err)
	return v
}

func abs[T constraints.Integer | constraints.Float](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// closeEnough compares float results to a tolerance of their magnitude,
// integers exactly.
func closeEnough[T Number](t *testing.T, want, got []T, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		if isInteger[T]() {
			if !assert.Equal(t, want[i], got[i], "%s [%d]", msg, i) {
				return
			}
			continue
		}
		w, g := float64(want[i]), float64(got[i])
		if !assert.InDelta(t, w, g, 1e-5*max(1, math.Abs(w)), "%s [%d]", msg, i) {
			return
		}
	}
}

func TestElementwise(t *testing.T) {
	s := newStream(t)
	t.Run("float32", func(t *testing.T) { testElementwise[float32](t, s) })
	t.Run("float64", func(t *testing.T) { testElementwise[float64](t, s) })
	t.Run("int32", func(t *testing.T) { testElementwise[int32](t, s) })
	t.Run("uint32", func(t *testing.T) { testElementwise[uint32](t, s) })
	t.Run("int64", func(t *testing.T) { testElementwise[int64](t, s) })
	t.Run("uint64", func(t *testing.T) { testElementwise[uint64](t, s) })
}

func testElementwise[T Number](t *testing.T, s *stream.Stream) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 257, 70000} {
		hx, hy := values[T](r, n), noZeros(values[T](r, n))
		x, y := mustFrom(t, s, hx), mustFrom(t, s, hy)
		ref := func(f func(a, b T) T) []T {
			out := make([]T, n)
			for i := range out {
				out[i] = f(hx[i], hy[i])
			}
			return out
		}
		ref1 := func(f func(a T) T) []T { return ref(func(a, _ T) T { return f(a) }) }
		c := T(3)
		for _, tc := range []struct {
			name string
			op   func() (*Array[T], error)
			want []T
		}{
			{"add", func() (*Array[T], error) { return Add(x, y) }, ref(func(a, b T) T { return a + b })},
			{"sub", func() (*Array[T], error) { return Sub(x, y) }, ref(func(a, b T) T { return a - b })},
			{"mul", func() (*Array[T], error) { return Mul(x, y) }, ref(func(a, b T) T { return a * b })},
			{"div", func() (*Array[T], error) { return Div(x, y) }, ref(func(a, b T) T { return a / b })},
			{"minimum", func() (*Array[T], error) { return Minimum(x, y) }, ref(func(a, b T) T { return min(a, b) })},
			{"maximum", func() (*Array[T], error) { return Maximum(x, y) }, ref(func(a, b T) T { return max(a, b) })},
			{"neg", func() (*Array[T], error) { return Neg(x) }, ref1(func(a T) T { return -a })},
			{"abs", func() (*Array[T], error) { return Abs(x) }, ref1(abs[T])},
			{"square", func() (*Array[T], error) { return Square(x) }, ref1(func(a T) T { return a * a })},
			{"scale", func() (*Array[T], error) { return Scale(x, c) }, ref1(func(a T) T { return c * a })},
			{"add scalar", func() (*Array[T], error) { return AddScalar(x, c) }, ref1(func(a T) T { return a + c })},
			{"sub scalar", func() (*Array[T], error) { return SubScalar(x, c) }, ref1(func(a T) T { return a - c })},
			{"div scalar", func() (*Array[T], error) { return DivScalar(x, c) }, ref1(func(a T) T { return a / c })},
			{"minimum scalar", func() (*Array[T], error) { return MinimumScalar(x, c) }, ref1(func(a T) T { return min(a, c) })},
			{"maximum scalar", func() (*Array[T], error) { return MaximumScalar(x, c) }, ref1(func(a T) T { return max(a, c) })},
		} {
			out, err := tc.op()
			got := host(t, res(out, err))
			closeEnough(t, tc.want, got, tc.name)
			assert.Equal(t, []int{n}, out.Shape(), tc.name)
		}
	}
}

// Mean is the sum over the size, against gonum's stat.Mean; NaN for an
// empty array.
func TestMean(t *testing.T) {
	s := newStream(t)
	r := rand.New(rand.NewPCG(8, 8))
	for _, n := range sizes {
		h := values[float64](r, n)
		got := item(t, res(Mean(mustFrom(t, s, h))))
		h32 := make([]float32, n)
		for i, v := range h {
			h32[i] = float32(v)
		}
		got32 := item(t, res(Mean(mustFrom(t, s, h32))))
		if n == 0 {
			assert.True(t, math.IsNaN(got), "mean of nothing: %v", got)
			assert.True(t, math.IsNaN(float64(got32)), "float32 mean of nothing: %v", got32)
			continue
		}
		want := stat.Mean(h, nil)
		assert.InDelta(t, want, got, 1e-9*(1+floats.Norm(h, 1)/float64(n)), "mean n=%d", n)
		assert.InDelta(t, want, float64(got32), 1e-4*(1+floats.Norm(h, 1)/float64(n)), "float32 mean n=%d", n)
	}
	_, err := Mean[float32](nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

func TestReductions(t *testing.T) {
	s := newStream(t)
	t.Run("float32", func(t *testing.T) { testReductions[float32](t, s) })
	t.Run("float64", func(t *testing.T) { testReductions[float64](t, s) })
	t.Run("int32", func(t *testing.T) { testReductions[int32](t, s) })
	t.Run("uint64", func(t *testing.T) { testReductions[uint64](t, s) })
}

func testReductions[T Number](t *testing.T, s *stream.Stream) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range sizes {
		h := values[T](r, n)
		a := mustFrom(t, s, h)
		var sum T
		f64 := make([]float64, n)
		for i, v := range h {
			sum += v
			f64[i] = float64(v)
		}
		got := item(t, res(Sum(a)))
		if isInteger[T]() {
			assert.Equal(t, sum, got, "sum n=%d", n)
		} else {
			want := floats.Sum(f64)
			assert.InDelta(t, want, float64(got), 1e-4*(1+floats.Norm(f64, 1)), "sum n=%d", n)
		}
		lo, hi := limitsOf[T]()
		wantMin, wantMax := hi, lo
		for _, v := range h {
			wantMin, wantMax = min(wantMin, v), max(wantMax, v)
		}
		assert.Equal(t, wantMin, item(t, res(Min(a))), "min n=%d", n)
		assert.Equal(t, wantMax, item(t, res(Max(a))), "max n=%d", n)
		if n > 0 {
			assert.Equal(t, int64(slices.Index(h, wantMin)), item(t, res(ArgMin(a))), "argmin n=%d", n)
			assert.Equal(t, int64(slices.Index(h, wantMax)), item(t, res(ArgMax(a))), "argmax n=%d", n)
		}

		cs := host(t, res(Cumsum(a)))
		want := make([]T, n)
		var run T
		for i, v := range h {
			run += v
			want[i] = run
		}
		if isInteger[T]() {
			assert.Equal(t, want, cs, "cumsum n=%d", n)
		} else if n > 0 {
			tol := 1e-4 * (1 + floats.Norm(f64, 1))
			for i := range want {
				if !assert.InDelta(t, float64(want[i]), float64(cs[i]), tol, "cumsum n=%d [%d]", n, i) {
					break
				}
			}
		}

		sorted := host(t, res(Sort(a)))
		wantSorted := slices.Clone(h)
		slices.Sort(wantSorted)
		assert.Equal(t, wantSorted, sorted, "sort n=%d", n)

		idx := host(t, res(Argsort(a)))
		require.Len(t, idx, n)
		for i := 1; i < n; i++ {
			prev, cur := h[idx[i-1]], h[idx[i]]
			if !assert.True(t, prev < cur || (prev == cur && idx[i-1] < idx[i]), "argsort n=%d at %d: not sorted or not stable", n, i) {
				break
			}
		}
	}
}

func limitsOf[T Number]() (lo, hi T) {
	switch p := any(&lo).(type) {
	case *float32:
		*p = float32(math.Inf(-1))
		*any(&hi).(*float32) = float32(math.Inf(1))
	case *float64:
		*p = math.Inf(-1)
		*any(&hi).(*float64) = math.Inf(1)
	case *int32:
		*p = math.MinInt32
		*any(&hi).(*int32) = math.MaxInt32
	case *int64:
		*p = math.MinInt64
		*any(&hi).(*int64) = math.MaxInt64
	case *uint32:
		*any(&hi).(*uint32) = math.MaxUint32
	case *uint64:
		*any(&hi).(*uint64) = math.MaxUint64
	}
	return lo, hi
}

func TestArgsortTies(t *testing.T) {
	s := newStream(t)
	a := mustFrom(t, s, []float32{2, 1, 2, 1, 0})
	assert.Equal(t, []int64{4, 1, 3, 0, 2}, host(t, res(Argsort(a))))
	assert.Equal(t, int64(0), item(t, res(ArgMax(a))), "first of equal maxima")
	assert.Equal(t, int64(4), item(t, res(ArgMin(a))))
}

func TestConstructors(t *testing.T) {
	s := newStream(t)
	z := host(t, res(Zeros[int32](s, 2, 3)))
	assert.Equal(t, make([]int32, 6), z)
	f, err := Full(s, float64(2.5), 4)
	require.NoError(t, err)
	assert.Equal(t, []int{4}, f.Shape())
	assert.Equal(t, []float64{2.5, 2.5, 2.5, 2.5}, host(t, res(f, nil)))
	assert.Equal(t, []uint64{0, 1, 2, 3, 4}, host(t, res(Arange[uint64](s, 5))))
	assert.Empty(t, host(t, res(Arange[float32](s, 0))))

	scalar, err := Full(s, int64(7))
	require.NoError(t, err)
	assert.Equal(t, 0, scalar.Ndim())
	assert.Equal(t, 1, scalar.Size())
	assert.Equal(t, int64(7), item(t, res(scalar, nil)))

	e, err := Empty[float32](s, 3, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, e.Size())
	require.NoError(t, e.Free())

	m := mustFrom(t, s, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	v, err := m.At(1, 2)
	require.NoError(t, err)
	assert.Equal(t, float32(6), v)
	out := make([]float32, 6)
	require.NoError(t, m.CopyTo(out))
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, out)
	assert.Equal(t, "array.Array[float32](2, 3)", m.String())

	c, err := m.Copy()
	require.NoError(t, err)
	assert.Equal(t, out, host(t, res(c, nil)))
}

// TestViews: a reshape, a ravel and a slice share the memory of their
// base (a write through the base's buffer shows through them), keep
// their shapes, and fail once the base is freed.
func TestViews(t *testing.T) {
	s := newStream(t)
	base, err := FromSlice(s, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 3, 4)
	require.NoError(t, err)

	r, err := base.Reshape(2, -1)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 6}, r.Shape())
	flat, err := base.Ravel()
	require.NoError(t, err)
	assert.Equal(t, []int{12}, flat.Shape())
	rows, err := base.Slice(1, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 4}, rows.Shape())
	got, err := rows.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{4, 5, 6, 7, 8, 9, 10, 11}, got)

	// Written in place through the slice's buffer: seen by the base and
	// the reshape.
	require.NoError(t, prim.Transform(s, rows.Buffer(), rows.Buffer(), prim.Scale, 10))
	got, err = base.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 1, 2, 3, 40, 50, 60, 70, 80, 90, 100, 110}, got)
	v, err := r.At(1, 0)
	require.NoError(t, err)
	assert.Equal(t, int32(60), v)

	// Reductions over a view cover only its elements.
	assert.Equal(t, int32(600), item(t, res(Sum(rows))))
	sub, err := rows.Slice(1, 2)
	require.NoError(t, err)
	assert.Equal(t, int32(80), item(t, res(Min(sub))))

	require.NoError(t, rows.Free(), "a view's Free does nothing")
	assert.Equal(t, int32(606), item(t, res(Sum(base))))

	require.NoError(t, base.Free())
	_, err = Sum(r)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "view of a freed array")
	_, err = rows.ToSlice()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorIs(t, base.Free(), gpu.ErrInvalidValue, "second free")
}

func TestFromBuffer(t *testing.T) {
	s := newStream(t)
	b := mustFrom(t, s, []float32{1, 2, 3, 4, 5, 6, 7})
	a, err := FromBuffer(s, b.Buffer(), 2, 3)
	require.NoError(t, err)
	assert.Equal(t, float32(21), item(t, res(Sum(a))))
	require.NoError(t, a.Free())
	_, err = FromBuffer(s, b.Buffer(), 2, 4)
	var se *ShapeError
	assert.ErrorAs(t, err, &se)
	_, err = FromBuffer[float32](s, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

// TestErrors: every bad argument is an error before anything is queued;
// the stream stays usable.
func TestErrors(t *testing.T) {
	s := newStream(t)
	a := mustFrom(t, s, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := mustFrom(t, s, []float32{1, 2, 3, 4, 5, 6}, 3, 2)
	i := mustFrom(t, s, []int32{1, 2})
	var nilArr *Array[float32]

	_, err := Add(a, b)
	var se *ShapeError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Equal(t, [][]int{{2, 3}, {3, 2}}, se.Shapes)
	assert.Contains(t, err.Error(), "(2, 3), (3, 2)")

	for name, f := range map[string]func() error{
		"nil operand":           func() error { _, err := Mul(a, nilArr); return err },
		"nil unary":             func() error { _, err := Neg(nilArr); return err },
		"zero value array":      func() error { _, err := Sum(&Array[float32]{}); return err },
		"integer div by zero":   func() error { _, err := DivScalar(i, 0); return err },
		"reshape size":          func() error { _, err := a.Reshape(4, 2); return err },
		"reshape two -1":        func() error { _, err := a.Reshape(-1, -1); return err },
		"reshape infer":         func() error { _, err := a.Reshape(-1, 4); return err },
		"slice range":           func() error { _, err := a.Slice(1, 3); return err },
		"slice 0-d":             func() error { s0, _ := Full(s, float32(1)); defer s0.Free(); _, err := s0.Slice(0, 1); return err },
		"negative dim":          func() error { _, err := Zeros[float32](s, 2, -1); return err },
		"nil stream":            func() error { _, err := Zeros[float32](nil, 2); return err },
		"from slice shape":      func() error { _, err := FromSlice(s, []float32{1, 2, 3}, 2, 2); return err },
		"arange negative":       func() error { _, err := Arange[int32](s, -1); return err },
		"at index":              func() error { _, err := a.At(2, 0); return err },
		"at rank":               func() error { _, err := a.At(1); return err },
		"item of many":          func() error { _, err := a.Item(); return err },
		"copy to short":         func() error { return a.CopyTo(make([]float32, 5)) },
		"argmin of empty":       func() error { e, _ := Zeros[float32](s, 0); defer e.Free(); _, err := ArgMin(e); return err },
		"sort of 2-d":           func() error { _, err := Sort(a); return err },
		"nil free":              func() error { return nilArr.Free() },
		"minimum scalar of nil": func() error { _, err := MinimumScalar(nilArr, 1); return err },
	} {
		err := f()
		if !assert.Error(t, err, name) {
			continue
		}
		assert.True(t, errors.Is(err, gpu.ErrInvalidValue) || errors.Is(err, gpu.ErrInvalidHandle) || errors.Is(err, gpu.ErrNotSupported), "%s: %v", name, err)
	}
	assert.NoError(t, s.Synchronize(), "nothing bad was queued")
	got, err := a.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, got)
}

// TestChain: results feed further operations on the stream with no host
// round trip; the order holds.
func TestChain(t *testing.T) {
	s := newStream(t)
	n := 50000
	x, err := Arange[float64](s, n)
	require.NoError(t, err)
	defer x.Free()
	y, err := Scale(x, 0.5)
	require.NoError(t, err)
	defer y.Free()
	z, err := Mul(y, y)
	require.NoError(t, err)
	defer z.Free()
	got := item(t, res(Sum(z)))
	var want float64
	for i := range n {
		want += float64(i) * 0.5 * float64(i) * 0.5
	}
	assert.InDelta(t, want, float64(got), 1e-9*want)
	assert.Equal(t, cmp.Compare(0, 1), -1)
}

func TestAxis(t *testing.T) {
	s := newStream(t)
	for _, shape := range [][]int{{3, 4}, {2, 3, 5}, {7}, {4, 0}, {0, 3}, {1, 70000}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		r := rand.New(rand.NewPCG(9, uint64(n)))
		h := values[int64](r, n)
		a := mustFrom(t, s, h, shape...)
		cols := shape[len(shape)-1]
		rows := n / max(cols, 1)
		if cols == 0 {
			rows = 1
			for _, d := range shape[:len(shape)-1] {
				rows *= d
			}
		}
		lo, hi := limitsOf[int64]()
		sums, mins, maxs := make([]int64, rows), make([]int64, rows), make([]int64, rows)
		for i := range rows {
			mins[i], maxs[i] = hi, lo
			for _, v := range h[i*cols : (i+1)*cols] {
				sums[i] += v
				mins[i], maxs[i] = min(mins[i], v), max(maxs[i], v)
			}
		}
		out, err := SumAxis(a)
		require.NoError(t, err)
		assert.Equal(t, shape[:len(shape)-1], out.Shape(), "%v", shape)
		assert.Equal(t, sums, host(t, res(out, nil)), "sum %v", shape)
		assert.Equal(t, mins, host(t, res(MinAxis(a))), "min %v", shape)
		assert.Equal(t, maxs, host(t, res(MaxAxis(a))), "max %v", shape)
	}
	s0, err := Full(s, float32(1))
	require.NoError(t, err)
	defer s0.Free()
	_, err = SumAxis(s0)
	var se *ShapeError
	assert.ErrorAs(t, err, &se)
}

func TestDense(t *testing.T) {
	s := newStream(t)
	m := mat.NewDense(3, 4, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	a, err := FromDense(s, m)
	require.NoError(t, err)
	defer a.Free()
	assert.Equal(t, []int{3, 4}, a.Shape())
	rowSums := host(t, res(SumAxis(a)))
	assert.Equal(t, []float64{10, 26, 42}, rowSums)
	d, err := ToDense(a)
	require.NoError(t, err)
	assert.True(t, mat.Equal(m, d))

	// A view with a stride: the columns 1 and 2.
	sub := m.Slice(0, 3, 1, 3).(*mat.Dense)
	b, err := FromDense(s, sub)
	require.NoError(t, err)
	defer b.Free()
	got, err := b.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float64{2, 3, 6, 7, 10, 11}, got)

	_, err = FromDense(s, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	flat, err := a.Ravel()
	require.NoError(t, err)
	_, err = ToDense(flat)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}
