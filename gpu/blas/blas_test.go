package blas_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/hipgo/hipgo/gpu/blas"
)

var ref gonum.Implementation

func TestLevel1(t *testing.T) {
	t.Run("float32", func(t *testing.T) { level1[float32](t) })
	t.Run("float64", func(t *testing.T) { level1[float64](t) })
}

// level1 checks every level 1 routine against gonum's, for unit, strided
// and negative increments.
func level1[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(1, 2))
	const n = 301
	for _, inc := range [][2]int{{1, 1}, {2, 3}, {-1, 2}, {3, -2}} {
		incx, incy := inc[0], inc[1]
		name := fmt.Sprintf("incx=%d incy=%d", incx, incy)
		ax, ay := abs(incx), abs(incy)
		x, y := random[T](r, 1+(n-1)*ax), random[T](r, 1+(n-1)*ay)
		alpha := T(0.75)

		// axpy
		dx, dy := upload(f, x), upload(f, y)
		require.NoError(t, blas.Axpy(f.h, n, alpha, dx, incx, dy, incy))
		want := axpyRef(n, alpha, x, incx, y, incy)
		assertClose(t, want, download(f, dy), tol[T](1), "axpy "+name)

		// copy
		dy = upload(f, y)
		require.NoError(t, blas.Copy(f.h, n, dx, incx, dy, incy))
		assertClose(t, copyRef(n, x, incx, y, incy), download(f, dy), 0, "copy "+name)

		// dot, both ways
		dy = upload(f, y)
		wantDot := dotRef(n, x, incx, y, incy)
		got, err := blas.Dot(f.h, n, dx, incx, dy, incy)
		require.NoError(t, err)
		assert.InDelta(t, float64(wantDot), float64(got), tol[T](n), "dot "+name)
		res := upload(f, []T{0, 42})
		require.NoError(t, blas.DotTo(f.h, n, dx, incx, dy, incy, res))
		out := download(f, res)
		assert.InDelta(t, float64(wantDot), float64(out[0]), tol[T](n), "dot to "+name)
		assert.Equal(t, T(42), out[1], "dot to wrote past its result")

		if incx < 0 {
			continue // scal and nrm2 take positive increments only
		}
		// nrm2
		wantNrm := nrm2Ref(n, x, incx)
		gotNrm, err := blas.Nrm2(f.h, n, dx, incx)
		require.NoError(t, err)
		assert.InDelta(t, float64(wantNrm), float64(gotNrm), tol[T](n), "nrm2 "+name)
		require.NoError(t, blas.Nrm2To(f.h, n, dx, incx, res))
		assert.InDelta(t, float64(wantNrm), float64(download(f, res)[0]), tol[T](n), "nrm2 to "+name)

		// scal
		require.NoError(t, blas.Scal(f.h, n, alpha, dx, incx))
		assertClose(t, scalRef(n, alpha, x, incx), download(f, dx), tol[T](1), "scal "+name)
	}
	// n = 0: nothing changes; the dot product and the norm are 0.
	dx, dy := upload(f, []T{1, 2}), upload(f, []T{3, 4})
	require.NoError(t, blas.Axpy(f.h, 0, 1, dx, 1, dy, 1))
	d, err := blas.Dot(f.h, 0, dx, 1, dy, 1)
	require.NoError(t, err)
	assert.Zero(t, d)
	assert.Equal(t, []T{3, 4}, download(f, dy))
}

func abs(v int) int { return max(v, -v) }

func TestGemv(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemv[float32](t) })
	t.Run("float64", func(t *testing.T) { gemv[float64](t) })
}

func gemv[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(3, 4))
	const m, n, lda = 45, 31, 40 // lda wider than the matrix
	a := random[T](r, (m-1)*lda+n)
	da := upload(f, a)
	for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, inc := range [][2]int{{1, 1}, {2, -3}} {
			lx, ly := n, m
			if tr == blas.Trans {
				lx, ly = m, n
			}
			incx, incy := inc[0], inc[1]
			x, y := random[T](r, 1+(lx-1)*abs(incx)), random[T](r, 1+(ly-1)*abs(incy))
			dx, dy := upload(f, x), upload(f, y)
			alpha, beta := T(1.5), T(-0.5)
			require.NoError(t, blas.Gemv(f.h, tr, m, n, alpha, da, lda, dx, incx, beta, dy, incy))
			want := append([]T(nil), y...)
			switch a := any(a).(type) {
			case []float32:
				ref.Sgemv(gtrans(tr), m, n, float32(alpha), a, lda, any(x).([]float32), incx, float32(beta), any(want).([]float32), incy)
			case []float64:
				ref.Dgemv(gtrans(tr), m, n, float64(alpha), a, lda, any(x).([]float64), incx, float64(beta), any(want).([]float64), incy)
			}
			assertClose(t, want, download(f, dy), tol[T](m+n), fmt.Sprintf("gemv %v inc %v", tr, inc))
		}
	}
}

func gtrans(t blas.Transpose) gblas.Transpose {
	if t == blas.Trans {
		return gblas.Trans
	}
	return gblas.NoTrans
}

func TestGemm(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemm[float32](t) })
	t.Run("float64", func(t *testing.T) { gemm[float64](t) })
}

// gemmCase is one gemm's shapes; pad widens each leading dimension.
type gemmCase struct {
	tA, tB  blas.Transpose
	m, n, k int
	pad     int
}

func gemmCases() []gemmCase {
	var cs []gemmCase
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			cs = append(cs, gemmCase{tA, tB, 37, 29, 53, 0}, gemmCase{tA, tB, 64, 1, 17, 5}, gemmCase{tA, tB, 1, 70, 3, 11})
		}
	}
	return cs
}

// stored returns the stored shape of an operand that is used as rows×cols
// after tr.
func stored(tr blas.Transpose, rows, cols int) (int, int) {
	if tr == blas.Trans {
		return cols, rows
	}
	return rows, cols
}

func gemm[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range gemmCases() {
		name := fmt.Sprintf("%v×%v %d×%d×%d pad %d", c.tA, c.tB, c.m, c.n, c.k, c.pad)
		ra, ca := stored(c.tA, c.m, c.k)
		rb, cb := stored(c.tB, c.k, c.n)
		lda, ldb, ldc := ca+c.pad, cb+c.pad, c.n+c.pad
		a, b, cc := random[T](r, (ra-1)*lda+ca), random[T](r, (rb-1)*ldb+cb), random[T](r, (c.m-1)*ldc+c.n)
		da, db, dc := upload(f, a), upload(f, b), upload(f, cc)
		alpha, beta := T(0.5), T(2)
		require.NoError(t, blas.Gemm(f.h, c.tA, c.tB, c.m, c.n, c.k, alpha, da, lda, db, ldb, beta, dc, ldc), name)
		want := gemmRef(c.tA, c.tB, c.m, c.n, c.k, alpha, a, lda, b, ldb, beta, cc, ldc)
		assertClose(t, want, download(f, dc), tol[T](c.k), name)
	}
}

func TestGemmStridedBatched(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemmBatched[float32](t) })
	t.Run("float64", func(t *testing.T) { gemmBatched[float64](t) })
}

func gemmBatched[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(7, 8))
	const batch = 5
	for _, c := range gemmCases() {
		name := fmt.Sprintf("%v×%v %d×%d×%d pad %d", c.tA, c.tB, c.m, c.n, c.k, c.pad)
		ra, ca := stored(c.tA, c.m, c.k)
		rb, cb := stored(c.tB, c.k, c.n)
		lda, ldb, ldc := ca+c.pad, cb+c.pad, c.n+c.pad
		// Strides beyond each matrix's span; B is shared by every batch (stride 0).
		sa, sb, sc := (ra-1)*lda+ca+7, 0, (c.m-1)*ldc+c.n+3
		a := random[T](r, (batch-1)*sa+(ra-1)*lda+ca)
		b := random[T](r, (rb-1)*ldb+cb)
		cc := random[T](r, (batch-1)*sc+(c.m-1)*ldc+c.n)
		da, db, dc := upload(f, a), upload(f, b), upload(f, cc)
		alpha, beta := T(-1), T(0.25)
		require.NoError(t, blas.GemmStridedBatched(f.h, c.tA, c.tB, c.m, c.n, c.k, alpha, da, lda, sa, db, ldb, sb, beta, dc, ldc, sc, batch), name)
		want := append([]T(nil), cc...)
		for i := 0; i < batch; i++ {
			wi := gemmRef(c.tA, c.tB, c.m, c.n, c.k, alpha, a[i*sa:], lda, b[i*sb:], ldb, beta, cc[i*sc:], ldc)
			copy(want[i*sc:], wi[:(c.m-1)*ldc+c.n])
		}
		assertClose(t, want, download(f, dc), tol[T](c.k), name)
	}
}

// References: gonum on host slices.

func axpyRef[T blas.Float](n int, alpha T, x []T, incx int, y []T, incy int) []T {
	y = append([]T(nil), y...)
	switch x := any(x).(type) {
	case []float32:
		ref.Saxpy(n, float32(alpha), x, incx, any(y).([]float32), incy)
	case []float64:
		ref.Daxpy(n, float64(alpha), x, incx, any(y).([]float64), incy)
	}
	return y
}

func copyRef[T blas.Float](n int, x []T, incx int, y []T, incy int) []T {
	y = append([]T(nil), y...)
	switch x := any(x).(type) {
	case []float32:
		ref.Scopy(n, x, incx, any(y).([]float32), incy)
	case []float64:
		ref.Dcopy(n, x, incx, any(y).([]float64), incy)
	}
	return y
}

func scalRef[T blas.Float](n int, alpha T, x []T, incx int) []T {
	x = append([]T(nil), x...)
	switch x := any(x).(type) {
	case []float32:
		ref.Sscal(n, float32(alpha), x, incx)
	case []float64:
		ref.Dscal(n, float64(alpha), x, incx)
	}
	return x
}

func dotRef[T blas.Float](n int, x []T, incx int, y []T, incy int) T {
	switch x := any(x).(type) {
	case []float32:
		return T(ref.Sdot(n, x, incx, any(y).([]float32), incy))
	case []float64:
		return T(ref.Ddot(n, x, incx, any(y).([]float64), incy))
	}
	return 0
}

func nrm2Ref[T blas.Float](n int, x []T, incx int) T {
	switch x := any(x).(type) {
	case []float32:
		return T(ref.Snrm2(n, x, incx))
	case []float64:
		return T(ref.Dnrm2(n, x, incx))
	}
	return 0
}

// gemmRef returns a copy of c (its first (m-1)*ldc+n elements) after gemm.
func gemmRef[T blas.Float](tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) []T {
	c = append([]T(nil), c[:(m-1)*ldc+n]...)
	ra, ca := stored(tA, m, k)
	rb, cb := stored(tB, k, n)
	a, b = a[:(ra-1)*lda+ca], b[:(rb-1)*ldb+cb]
	switch a := any(a).(type) {
	case []float32:
		ref.Sgemm(gtrans(tA), gtrans(tB), m, n, k, float32(alpha), a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		ref.Dgemm(gtrans(tA), gtrans(tB), m, n, k, float64(alpha), a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
	return c
}
