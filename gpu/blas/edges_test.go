package blas_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/blas"
)

// These tests check the routines at the edges of their arguments (sizes 0
// and 1, leading dimensions and increments wider than needed, negative
// increments, alpha or beta 0) against plain loops, the BLAS definitions
// written out, rather than against gonum, which the cpu backend is. Every
// buffer is checked whole: elements a routine must not touch (between
// strides, in the padding of leading dimensions) hold sentinels.

// sentinel marks elements a routine must leave alone.
const sentinel = 1234.5

// padded returns a buffer of max(1, span) elements: v's values where used
// says so, the sentinel elsewhere.
func padded[T blas.Float](r *rand.Rand, span int, used func(i int) bool) []T {
	v := make([]T, max(1, span))
	for i := range v {
		if used(i) {
			v[i] = T(2*r.Float64() - 1)
		} else {
			v[i] = sentinel
		}
	}
	return v
}

// strided says whether element i of a buffer is one of the n elements of
// a vector with increment inc.
func strided(n, inc int) func(int) bool {
	inc = abs(inc)
	return func(i int) bool { return i%inc == 0 && i/inc < n }
}

// matrixAt says whether element i of a buffer is in the rows×cols matrix
// with leading dimension ld.
func matrixAt(rows, cols, ld int) func(int) bool {
	return func(i int) bool { return i/ld < rows && i%ld < cols }
}

// matSpan is the number of elements a rows×cols matrix with leading
// dimension ld takes: none when it is empty, so that the buffer holding it
// may be as short as a buffer gets.
func matSpan(rows, cols, ld int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*ld + cols
}

// span is the number of elements n elements with increment inc take.
func span(n, inc int) int {
	if n == 0 {
		return 0
	}
	return 1 + (n-1)*abs(inc)
}

// idx is the buffer index of element i of an n-element vector with
// increment inc: a negative increment walks the vector from its end.
func idx(i, n, inc int) int {
	if inc < 0 {
		return (n - 1 - i) * -inc
	}
	return i * inc
}

func TestLevel1Edges(t *testing.T) {
	t.Run("float32", func(t *testing.T) { level1Edges[float32](t) })
	t.Run("float64", func(t *testing.T) { level1Edges[float64](t) })
}

func level1Edges[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{0, 1, 2, 3, 31, 32, 33, 97} {
		for _, inc := range [][2]int{{1, 1}, {1, -1}, {-2, 1}, {3, 2}, {-1, -3}, {5, -4}} {
			incx, incy := inc[0], inc[1]
			name := fmt.Sprintf("n=%d incx=%d incy=%d", n, incx, incy)
			x := padded[T](r, span(n, incx), strided(n, incx))
			y := padded[T](r, span(n, incy), strided(n, incy))
			dx := upload(f, x)
			for _, alpha := range []T{0, 1, -0.75} {
				dy := upload(f, y)
				require.NoError(t, blas.Axpy(f.h, n, alpha, dx, incx, dy, incy), name)
				want := append([]T(nil), y...)
				for i := 0; i < n; i++ {
					want[idx(i, n, incy)] += alpha * x[idx(i, n, incx)]
				}
				assertClose(t, want, download(f, dy), tol[T](1), "axpy alpha=%v %s", alpha, name)
			}

			dy := upload(f, y)
			require.NoError(t, blas.Copy(f.h, n, dx, incx, dy, incy), name)
			want := append([]T(nil), y...)
			for i := 0; i < n; i++ {
				want[idx(i, n, incy)] = x[idx(i, n, incx)]
			}
			assert.Equal(t, want, download(f, dy), "copy %s", name)

			var dot float64
			for i := 0; i < n; i++ {
				dot += float64(x[idx(i, n, incx)]) * float64(y[idx(i, n, incy)])
			}
			dy = upload(f, y)
			got, err := blas.Dot(f.h, n, dx, incx, dy, incy)
			require.NoError(t, err, name)
			assert.InDelta(t, dot, float64(got), tol[T](n), "dot %s", name)
			res := upload(f, []T{sentinel, sentinel})
			require.NoError(t, blas.DotTo(f.h, n, dx, incx, dy, incy, res), name)
			out := download(f, res)
			assert.InDelta(t, dot, float64(out[0]), tol[T](n), "dot to %s", name)
			assert.Equal(t, T(sentinel), out[1], "dot to wrote past its result: %s", name)

			if incx < 0 {
				continue // scal and nrm2 take positive increments only
			}
			var ss float64
			for i := 0; i < n; i++ {
				ss += float64(x[i*incx]) * float64(x[i*incx])
			}
			nrm, err := blas.Nrm2(f.h, n, dx, incx)
			require.NoError(t, err, name)
			assert.InDelta(t, math.Sqrt(ss), float64(nrm), tol[T](n), "nrm2 %s", name)
			require.NoError(t, blas.Nrm2To(f.h, n, dx, incx, res), name)
			assert.InDelta(t, math.Sqrt(ss), float64(download(f, res)[0]), tol[T](n), "nrm2 to %s", name)

			for _, alpha := range []T{0, 1, -2.5} {
				dx := upload(f, x)
				require.NoError(t, blas.Scal(f.h, n, alpha, dx, incx), name)
				want := append([]T(nil), x...)
				for i := 0; i < n; i++ {
					want[i*incx] *= alpha
				}
				assertClose(t, want, download(f, dx), tol[T](1), "scal alpha=%v %s", alpha, name)
			}
		}
	}
}

// Nrm2 neither overflows nor underflows where the norm itself is in
// range, as BLAS's scaled sum of squares guarantees.
func TestNrm2Range(t *testing.T) {
	f := newFixture(t)
	for _, s := range []float64{1e30, 1e-30} {
		x := upload(f, []float32{3 * float32(s), sentinel, 4 * float32(s)})
		got, err := blas.Nrm2(f.h, 2, x, 2)
		require.NoError(t, err)
		assert.InEpsilon(t, 5*s, float64(got), 1e-6, "float32 scale %g", s)
	}
	for _, s := range []float64{1e300, 1e-300} {
		x := upload(f, []float64{3 * s, 4 * s})
		got, err := blas.Nrm2(f.h, 2, x, 1)
		require.NoError(t, err)
		assert.InEpsilon(t, 5*s, got, 1e-14, "float64 scale %g", s)
	}
}

func TestGemvEdges(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemvEdges[float32](t) })
	t.Run("float64", func(t *testing.T) { gemvEdges[float64](t) })
}

func gemvEdges[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(13, 14))
	nan := T(math.NaN())
	for _, tr := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, mn := range [][2]int{{0, 3}, {3, 0}, {1, 1}, {1, 7}, {7, 1}, {5, 3}, {17, 16}} {
			for _, pad := range []int{0, 3} {
				for _, inc := range [][2]int{{1, 1}, {-2, 3}, {2, -1}} {
					for _, ab := range [][2]T{{1.5, -0.5}, {1, 0}, {0, 2}, {0, 0}} {
						m, n, lda := mn[0], mn[1], mn[1]+pad
						lda = max(lda, 1)
						incx, incy := inc[0], inc[1]
						alpha, beta := ab[0], ab[1]
						lx, ly := n, m
						if tr == blas.Trans {
							lx, ly = m, n
						}
						name := fmt.Sprintf("%v m=%d n=%d lda=%d inc=%v alpha=%v beta=%v", tr, m, n, lda, inc, alpha, beta)
						a := padded[T](r, matSpan(m, n, lda), matrixAt(m, n, lda))
						x := padded[T](r, span(lx, incx), strided(lx, incx))
						y := padded[T](r, span(ly, incy), strided(ly, incy))
						if alpha == 0 && m > 0 && n > 0 {
							a[0] = nan // not read when alpha is 0
						}
						if beta == 0 && ly > 0 {
							y[idx(0, ly, incy)] = nan // not read when beta is 0
						}
						want := append([]T(nil), y...)
						if m > 0 && n > 0 { // BLAS returns at once otherwise
							for i := 0; i < ly; i++ {
								var s float64
								if alpha != 0 {
									for j := 0; j < lx; j++ {
										var aij T // op(A)[i][j]
										if tr == blas.Trans {
											aij = a[j*lda+i]
										} else {
											aij = a[i*lda+j]
										}
										s += float64(aij) * float64(x[idx(j, lx, incx)])
									}
								}
								yi := &want[idx(i, ly, incy)]
								if beta == 0 {
									*yi = T(float64(alpha) * s)
								} else {
									*yi = T(float64(alpha)*s + float64(beta)*float64(*yi))
								}
							}
						}
						da, dx, dy := upload(f, a), upload(f, x), upload(f, y)
						require.NoError(t, blas.Gemv(f.h, tr, m, n, alpha, da, lda, dx, incx, beta, dy, incy), name)
						assertClose(t, want, download(f, dy), tol[T](m+n), name)
					}
				}
			}
		}
	}
}

func TestGemmEdges(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemmEdges[float32](t) })
	t.Run("float64", func(t *testing.T) { gemmEdges[float64](t) })
}

// gemmLoop is gemm by its definition on the first batch matrices of a, b
// and c, strides apart; it returns a copy of c. A and B are not read when
// alpha is 0 or k is 0, nor C when beta is 0.
func gemmLoop[T blas.Float](tA, tB blas.Transpose, m, n, k int, alpha T, a []T, lda, sa int, b []T, ldb, sb int, beta T, c []T, ldc, sc, batch int) []T {
	c = append([]T(nil), c...)
	for p := 0; p < batch; p++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				var s float64
				if alpha != 0 {
					for l := 0; l < k; l++ {
						var ail, blj T // op(A)[i][l], op(B)[l][j]
						if tA == blas.Trans {
							ail = a[p*sa+l*lda+i]
						} else {
							ail = a[p*sa+i*lda+l]
						}
						if tB == blas.Trans {
							blj = b[p*sb+j*ldb+l]
						} else {
							blj = b[p*sb+l*ldb+j]
						}
						s += float64(ail) * float64(blj)
					}
				}
				cij := &c[p*sc+i*ldc+j]
				if beta == 0 {
					*cij = T(float64(alpha) * s)
				} else {
					*cij = T(float64(alpha)*s + float64(beta)*float64(*cij))
				}
			}
		}
	}
	return c
}

func gemmEdges[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(15, 16))
	nan := T(math.NaN())
	shapes := [][3]int{{0, 3, 2}, {3, 0, 2}, {3, 2, 0}, {1, 1, 1}, {1, 5, 1}, {5, 1, 7}, {2, 3, 4}, {17, 13, 19}}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, sh := range shapes {
				for _, pad := range []int{0, 2} {
					for _, ab := range [][2]T{{0.5, -1.5}, {1, 0}, {0, 2}, {0, 0}} {
						m, n, k := sh[0], sh[1], sh[2]
						alpha, beta := ab[0], ab[1]
						ra, ca := stored(tA, m, k)
						rb, cb := stored(tB, k, n)
						lda, ldb, ldc := max(1, ca+pad), max(1, cb+pad), max(1, n+pad)
						name := fmt.Sprintf("%v×%v m=%d n=%d k=%d pad=%d alpha=%v beta=%v", tA, tB, m, n, k, pad, alpha, beta)
						a := padded[T](r, matSpan(ra, ca, lda), matrixAt(ra, ca, lda))
						b := padded[T](r, matSpan(rb, cb, ldb), matrixAt(rb, cb, ldb))
						c := padded[T](r, matSpan(m, n, ldc), matrixAt(m, n, ldc))
						if alpha == 0 || k == 0 {
							a[0], b[0] = nan, nan // not read
						}
						if beta == 0 && m > 0 && n > 0 {
							c[0] = nan // not read
						}
						want := gemmLoop(tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1)
						da, db, dc := upload(f, a), upload(f, b), upload(f, c)
						require.NoError(t, blas.Gemm(f.h, tA, tB, m, n, k, alpha, da, lda, db, ldb, beta, dc, ldc), name)
						assertClose(t, want, download(f, dc), tol[T](k), name)
					}
				}
			}
		}
	}
}

func TestGemmStridedBatchedEdges(t *testing.T) {
	t.Run("float32", func(t *testing.T) { gemmBatchedEdges[float32](t) })
	t.Run("float64", func(t *testing.T) { gemmBatchedEdges[float64](t) })
}

func gemmBatchedEdges[T blas.Float](t *testing.T) {
	f := newFixture(t)
	r := rand.New(rand.NewPCG(17, 18))
	shapes := [][3]int{{0, 3, 2}, {3, 2, 0}, {1, 1, 1}, {4, 3, 5}, {3, 17, 2}}
	for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
		for _, tB := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, sh := range shapes {
				for _, batch := range []int{0, 1, 3} {
					m, n, k := sh[0], sh[1], sh[2]
					ra, ca := stored(tA, m, k)
					rb, cb := stored(tB, k, n)
					lda, ldb, ldc := max(1, ca+1), max(1, cb), max(1, n+2)
					spanA, spanB, spanC := matSpan(ra, ca, lda), matSpan(rb, cb, ldb), matSpan(m, n, ldc)
					// A's matrices are apart, B is shared (stride 0), C's
					// follow one another with a gap of one.
					sa, sb, sc := spanA+3, 0, spanC+1
					alpha, beta := T(0.75), T(-2)
					name := fmt.Sprintf("%v×%v m=%d n=%d k=%d batch=%d", tA, tB, m, n, k, batch)
					a := padded[T](r, max(0, batch-1)*sa+spanA, func(i int) bool { return matrixAt(ra, ca, lda)(i % sa) })
					b := padded[T](r, spanB, matrixAt(rb, cb, ldb))
					c := padded[T](r, max(0, batch-1)*sc+spanC, func(i int) bool { return matrixAt(m, n, ldc)(i % max(1, sc)) })
					want := gemmLoop(tA, tB, m, n, k, alpha, a, lda, sa, b, ldb, sb, beta, c, ldc, sc, batch)
					da, db, dc := upload(f, a), upload(f, b), upload(f, c)
					require.NoError(t, blas.GemmStridedBatched(f.h, tA, tB, m, n, k, alpha, da, lda, sa, db, ldb, sb, beta, dc, ldc, sc, batch), name)
					assertClose(t, want, download(f, dc), tol[T](k), name)
				}
			}
		}
	}
}
