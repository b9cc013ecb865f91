package array

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// bigN crosses the cpu agent's span (2^15) and the GPU shape's grid of
// 16 blocks of 256 a worker; smaller under the race detector, which
// slows the kernels' Go tenfold.
var bigN = map[bool]int{false: 70000, true: 40000}[raceflag.Enabled]

// randomOf is n values of T, small integers (many equal) and for floats
// NaN, ±0 and ±Inf among them.
func randomOf[T Element](r *rand.Rand, n int) []T {
	out := make([]T, n)
	for i := range out {
		v := r.IntN(16)
		if !isFloat[T]() {
			out[i] = T(v)
			continue
		}
		f := float64(v) - 8
		switch r.IntN(16) {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Copysign(0, -1)
		case 2:
			f = math.Inf(1 - 2*r.IntN(2))
		case 3:
			f += 0.5
		}
		out[i] = T(f)
	}
	return out
}

func mustFromE[T Element](t testing.TB, s *stream.Stream, h []T, shape ...int) *Array[T] {
	a, err := FromSlice(s, h, shape...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Free() })
	return a
}

// hostOf is an operation's result on the host, the result freed.
func hostOf[T Element](t testing.TB) func(a *Array[T], err error) []T {
	return func(a *Array[T], err error) []T {
		t.Helper()
		require.NoError(t, err)
		defer a.Free()
		h, err := a.ToSlice()
		require.NoError(t, err)
		return h
	}
}

// bothShapes runs f with the cpu agent's launch shape and the GPU's.
func bothShapes(t *testing.T, f func(t *testing.T)) {
	t.Run("cpu-shape", f)
	t.Run("gpu-shape", func(t *testing.T) {
		forceGPUShape = true
		defer func() { forceGPUShape = false }()
		f(t)
	})
}

func TestCompare(t *testing.T) {
	s := newStream(t)
	bothShapes(t, func(t *testing.T) {
		t.Run("uint8", func(t *testing.T) { testCompare[uint8](t, s) })
		t.Run("int32", func(t *testing.T) { testCompare[int32](t, s) })
		t.Run("uint32", func(t *testing.T) { testCompare[uint32](t, s) })
		t.Run("int64", func(t *testing.T) { testCompare[int64](t, s) })
		t.Run("uint64", func(t *testing.T) { testCompare[uint64](t, s) })
		t.Run("float32", func(t *testing.T) { testCompare[float32](t, s) })
		t.Run("float64", func(t *testing.T) { testCompare[float64](t, s) })
	})
}

func testCompare[T Element](t *testing.T, s *stream.Stream) {
	r := rand.New(rand.NewPCG(3, 4))
	mask := hostOf[uint8](t)
	vals := hostOf[T](t)
	for _, n := range []int{0, 1, 257, bigN} {
		hx, hy := randomOf[T](r, n), randomOf[T](r, n)
		x, y := mustFromE(t, s, hx, n), mustFromE(t, s, hy, n)
		c := T(7)
		ops := []struct {
			name   string
			arr    func(a, b *Array[T]) (*Array[uint8], error)
			scalar func(a *Array[T], x T) (*Array[uint8], error)
			ref    func(a, b T) bool
		}{
			{"equal", Equal[T], EqualScalar[T], func(a, b T) bool { return a == b }},
			{"not equal", NotEqual[T], NotEqualScalar[T], func(a, b T) bool { return a != b }},
			{"less", Less[T], LessScalar[T], func(a, b T) bool { return a < b }},
			{"less equal", LessEqual[T], LessEqualScalar[T], func(a, b T) bool { return a <= b }},
			{"greater", Greater[T], GreaterScalar[T], func(a, b T) bool { return a > b }},
			{"greater equal", GreaterEqual[T], GreaterEqualScalar[T], func(a, b T) bool { return a >= b }},
		}
		for _, op := range ops {
			want, wantC := make([]uint8, n), make([]uint8, n)
			for i := range n {
				if op.ref(hx[i], hy[i]) {
					want[i] = 1
				}
				if op.ref(hx[i], c) {
					wantC[i] = 1
				}
			}
			assert.Equal(t, want, mask(op.arr(x, y)), "%s n=%d", op.name, n)
			assert.Equal(t, wantC, mask(op.scalar(x, c)), "%s scalar n=%d", op.name, n)
		}

		m := mask(Less(x, y))
		dm := mustFromE(t, s, m, n)
		want, wantC := make([]T, n), make([]T, n)
		for i := range n {
			want[i], wantC[i] = hy[i], c
			if m[i] != 0 {
				want[i], wantC[i] = hx[i], hx[i]
			}
		}
		assertSame(t, want, vals(Where(dm, x, y)), "where n=%d", n)
		assertSame(t, wantC, vals(WhereScalar(dm, x, c)), "where scalar n=%d", n)

		for _, b := range [][2]T{{2, 9}, {9, 2}, {5, 5}} {
			lo, hi := b[0], b[1]
			want := make([]T, n)
			for i, v := range hx {
				want[i] = min(max(v, lo), hi)
				if v != v {
					want[i] = v // NaN stays, where Go's min and max would give NaN too
				}
			}
			assertSame(t, want, vals(Clip(x, lo, hi)), "clip [%v, %v] n=%d", lo, hi, n)
		}

		count := int64(0)
		for _, v := range hx {
			if v != 0 {
				count++
			}
		}
		cn, err := CountNonzero(x)
		require.NoError(t, err)
		assert.Equal(t, []int{}, cn.Shape())
		got, err := cn.Item()
		require.NoError(t, err)
		assert.Equal(t, count, got, "count nonzero n=%d", n)
		require.NoError(t, cn.Free())
		assert.Equal(t, []uint8{b2u(count > 0)}, mask(Any(x)), "any n=%d", n)
		assert.Equal(t, []uint8{b2u(count == int64(n))}, mask(All(x)), "all n=%d", n)
	}
	// All and Any of arrays with no zero, all zeros, one nonzero.
	for _, n := range []int{1, 300, bigN} {
		z := make([]T, n)
		zs := mustFromE(t, s, z)
		assert.Equal(t, []uint8{0}, mask(Any(zs)), "any of zeros n=%d", n)
		assert.Equal(t, []uint8{0}, mask(All(zs)), "all of zeros n=%d", n)
		z[n/2] = 1
		one := mustFromE(t, s, z)
		assert.Equal(t, []uint8{1}, mask(Any(one)), "any of one n=%d", n)
		assert.Equal(t, []uint8{b2u(n == 1)}, mask(All(one)), "all of one n=%d", n)
		for i := range z {
			z[i] = T(1 + i%3)
		}
		ones := mustFromE(t, s, z)
		assert.Equal(t, []uint8{1}, mask(All(ones)), "all of nonzeros n=%d", n)
	}
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// assertSame compares bit for bit where floats are NaN.
func assertSame[T Element](t *testing.T, want, got []T, format string, args ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		if want[i] != got[i] && (want[i] == want[i] || got[i] == got[i]) {
			assert.Equal(t, want[i], got[i], append([]any{"[%d] " + format, i}, args...)...)
			return
		}
	}
}

func TestAsType(t *testing.T) {
	s := newStream(t)
	bothShapes(t, func(t *testing.T) {
		t.Run("uint8", func(t *testing.T) { testAsTypeFrom[uint8](t, s) })
		t.Run("int32", func(t *testing.T) { testAsTypeFrom[int32](t, s) })
		t.Run("uint32", func(t *testing.T) { testAsTypeFrom[uint32](t, s) })
		t.Run("int64", func(t *testing.T) { testAsTypeFrom[int64](t, s) })
		t.Run("uint64", func(t *testing.T) { testAsTypeFrom[uint64](t, s) })
		t.Run("float32", func(t *testing.T) { testAsTypeFrom[float32](t, s) })
		t.Run("float64", func(t *testing.T) { testAsTypeFrom[float64](t, s) })
	})
}

// testAsTypeFrom converts T's values that every type holds (Go's
// conversions are defined for them) to each type, and the integers'
// whole range to each integer type (bits kept or extended).
func testAsTypeFrom[T Element](t *testing.T, s *stream.Stream) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 3, bigN} {
		h := make([]T, n)
		for i := range h {
			f := float64(r.IntN(256))
			if isFloat[T]() && i%2 == 1 {
				f += 0.75 // truncated toward zero
			}
			h[i] = T(f)
		}
		if !isFloat[T]() && n > 0 {
			var zero T
			h[0] = zero - 1         // all ones: -1 or the highest value
			h[1] = (zero - 1) * 128 // all ones but the low 7 bits
		}
		a := mustFromE(t, s, h, n)
		asTypeCase[uint8](t, a, h)
		asTypeCase[int32](t, a, h)
		asTypeCase[uint32](t, a, h)
		asTypeCase[int64](t, a, h)
		asTypeCase[uint64](t, a, h)
		asTypeCase[float32](t, a, h)
		asTypeCase[float64](t, a, h)
	}
}

func asTypeCase[U, T Element](t *testing.T, a *Array[T], h []T) {
	t.Helper()
	want := make([]U, len(h))
	for i, v := range h {
		want[i] = U(v)
	}
	out, err := AsType[U](a)
	require.NoError(t, err)
	assert.Equal(t, a.Shape(), out.Shape())
	assert.Equal(t, want, hostOf[U](t)(out, nil), "%T to %T", h, want)
}

// TestAsTypeSaturates: floats out of an integer type's range saturate,
// NaN is 0, on every agent; in range, truncation toward zero.
func TestAsTypeSaturates(t *testing.T) {
	s := newStream(t)
	bothShapes(t, func(t *testing.T) {
		nan, inf := math.NaN(), math.Inf(1)
		f := mustFromE(t, s, []float64{nan, inf, -inf, 3e9, -3e9, -0.9, 2147483647.9, -2147483648.9, 255.9, 256, -1, 300.5,
			9.223372036854775807e18, -9.223372036854775808e18, 1.8446744073709552e19, 1.844674407370955e19, 1e300})
		assert.Equal(t, []int32{0, math.MaxInt32, math.MinInt32, math.MaxInt32, math.MinInt32, 0, math.MaxInt32, math.MinInt32, 255, 256, -1, 300,
			math.MaxInt32, math.MinInt32, math.MaxInt32, math.MaxInt32, math.MaxInt32}, hostOf[int32](t)(AsType[int32](f)))
		assert.Equal(t, []uint8{0, 255, 0, 255, 0, 0, 255, 0, 255, 255, 0, 255, 255, 0, 255, 255, 255}, hostOf[uint8](t)(AsType[uint8](f)))
		assert.Equal(t, []int64{0, math.MaxInt64, math.MinInt64, 3e9, -3e9, 0, 2147483647, -2147483648, 255, 256, -1, 300,
			math.MaxInt64, math.MinInt64, math.MaxInt64, math.MaxInt64, math.MaxInt64}, hostOf[int64](t)(AsType[int64](f)))
		assert.Equal(t, []uint64{0, math.MaxUint64, 0, 3e9, 0, 0, 2147483647, 0, 255, 256, 0, 300,
			1 << 63, 0, math.MaxUint64, 18446744073709549568, math.MaxUint64}, hostOf[uint64](t)(AsType[uint64](f)))
		assert.Equal(t, []uint32{0, math.MaxUint32, 0, 3e9, 0, 0, 2147483647, 0, 255, 256, 0, 300,
			math.MaxUint32, 0, math.MaxUint32, math.MaxUint32, math.MaxUint32}, hostOf[uint32](t)(AsType[uint32](f)))
		f32 := hostOf[float32](t)(AsType[float32](f))
		assert.True(t, math.IsInf(float64(f32[16]), 1), "1e300 is +Inf in float32")
		assert.True(t, f32[0] != f32[0])
		i := mustFromE(t, s, []int64{300, -1, math.MinInt64, 1<<53 + 1})
		assert.Equal(t, []uint8{44, 255, 0, 1}, hostOf[uint8](t)(AsType[uint8](i)), "integers keep their low bits")
		assert.Equal(t, []float64{300, -1, -9.223372036854775808e18, 1 << 53}, hostOf[float64](t)(AsType[float64](i)), "to the nearest, ties to even")
	})
}

// TestMaskErrors: bad operands are clear errors and queue nothing.
func TestMaskErrors(t *testing.T) {
	s := newStream(t)
	a := mustFromE(t, s, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := mustFromE(t, s, []float32{1, 2, 3, 4, 5, 6}, 3, 2)
	m := mustFromE(t, s, []uint8{1, 0, 1, 0, 1, 0}, 2, 3)
	m6 := mustFromE(t, s, []uint8{1, 0, 1, 0, 1, 0})
	freed, err := Zeros[float32](s, 2, 3)
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	freedView, err := freed.Ravel()
	assert.Error(t, err, "a view of a freed array")
	assert.Nil(t, freedView)
	var nilArr *Array[float32]
	var nilMask *Array[uint8]
	for name, f := range map[string]func() error{
		"equal shapes":       func() error { _, err := Equal(a, b); return err },
		"less nil":           func() error { _, err := Less(a, nilArr); return err },
		"greater freed":      func() error { _, err := Greater(freed, a); return err },
		"scalar nil":         func() error { _, err := LessEqualScalar(nilArr, 1); return err },
		"scalar freed":       func() error { _, err := GreaterEqualScalar(freed, 1); return err },
		"where mask shape":   func() error { _, err := Where(m6, a, a); return err },
		"where y shape":      func() error { _, err := Where(m, a, b); return err },
		"where nil mask":     func() error { _, err := Where(nilMask, a, a); return err },
		"where nil y":        func() error { _, err := Where(m, a, nilArr); return err },
		"where freed x":      func() error { _, err := WhereScalar(m, freed, 0); return err },
		"clip nil":           func() error { _, err := Clip(nilArr, 0, 1); return err },
		"clip freed":         func() error { _, err := Clip(freed, 0, 1); return err },
		"astype nil":         func() error { _, err := AsType[int32](nilArr); return err },
		"astype freed":       func() error { _, err := AsType[uint8](freed); return err },
		"count nonzero nil":  func() error { _, err := CountNonzero(nilArr); return err },
		"any freed":          func() error { _, err := Any(freed); return err },
		"all zero value":     func() error { _, err := All(&Array[float32]{}); return err },
		"equal zero value":   func() error { _, err := Equal(a, &Array[float32]{}); return err },
		"vec dense of a nil": func() error { _, err := ToVecDense(nil); return err },
	} {
		err := f()
		if assert.Error(t, err, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		}
	}
	_, err = Where(m6, a, a)
	var se *ShapeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, [][]int{{6}, {2, 3}}, se.Shapes)
	assert.NoError(t, s.Synchronize(), "nothing bad was queued")
	got, err := a.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, got)
}
