package blas

// Gemv computes y = alpha·op(A)·x + beta·y (hipblasSgemv, hipblasDgemv),
// where A is an m×n row-major matrix with leading dimension lda and op(A)
// is A or Aᵀ: x has n elements and y m for NoTrans, the reverse for Trans.
func Gemv[T Float](h *Handle, trans Transpose, m, n int, alpha T, a Array[T], lda int, x Array[T], incx int, beta T, y Array[T], incy int) error {
	c := newCall[T]("gemv", kGemv)
	c.tA, c.m, c.n, c.alpha, c.lda, c.incx, c.beta, c.incy = trans, m, n, float64(alpha), lda, incx, float64(beta), incy
	op := c.op
	if err := checkHandle(op, h); err != nil {
		return err
	}
	if err := checkTrans(op, "trans", trans); err != nil {
		return err
	}
	if err := checkDim(op, "m", m); err != nil {
		return err
	}
	if err := checkDim(op, "n", n); err != nil {
		return err
	}
	am, err := mem(op, "a", h, a)
	if err != nil {
		return err
	}
	if err := checkMatrix(op, "a", "lda", am, m, n, lda, "", 0, 1); err != nil {
		return err
	}
	lx, ly := n, m
	if trans == Trans {
		lx, ly = m, n
	}
	if err := checkInc(op, "incx", incx, false); err != nil {
		return err
	}
	if err := checkInc(op, "incy", incy, false); err != nil {
		return err
	}
	xm, err := mem(op, "x", h, x)
	if err != nil {
		return err
	}
	if err := checkVector(op, "x", xm, lx, incx); err != nil {
		return err
	}
	ym, err := mem(op, "y", h, y)
	if err != nil {
		return err
	}
	if err := checkVector(op, "y", ym, ly, incy); err != nil {
		return err
	}
	c.a, c.x, c.y = am, xm, ym
	return h.submit(c)
}

// Gemm computes C = alpha·op(A)·op(B) + beta·C (hipblasSgemm,
// hipblasDgemm) for row-major matrices: op(A) is m×k, op(B) k×n and C m×n,
// with leading dimensions lda, ldb and ldc (the stored widths or more).
// As in BLAS, A and B are not read when alpha or k is 0, nor C when beta
// is 0: NaNs there do not reach the result.
func Gemm[T Float](h *Handle, tA, tB Transpose, m, n, k int, alpha T, a Array[T], lda int, b Array[T], ldb int, beta T, c Array[T], ldc int) error {
	cl := newCall[T]("gemm", kGemm)
	if err := gemmArgs(cl, h, tA, tB, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1); err != nil {
		return err
	}
	return h.submit(cl)
}

// GemmStridedBatched computes batch gemms (hipblasSgemmStridedBatched):
// matrix i of A starts strideA elements after matrix i-1, and likewise for
// B and C. C's matrices must not overlap.
func GemmStridedBatched[T Float](h *Handle, tA, tB Transpose, m, n, k int, alpha T, a Array[T], lda, strideA int, b Array[T], ldb, strideB int, beta T, c Array[T], ldc, strideC int, batch int) error {
	cl := newCall[T]("gemm strided batched", kGemm)
	if err := gemmArgs(cl, h, tA, tB, m, n, k, alpha, a, lda, strideA, b, ldb, strideB, beta, c, ldc, strideC, batch); err != nil {
		return err
	}
	return h.submit(cl)
}

func gemmArgs[T Float](c *call, h *Handle, tA, tB Transpose, m, n, k int, alpha T, a Array[T], lda, strideA int, b Array[T], ldb, strideB int, beta T, cc Array[T], ldc, strideC int, batch int) error {
	op := c.op
	if err := checkHandle(op, h); err != nil {
		return err
	}
	if err := checkTrans(op, "transA", tA); err != nil {
		return err
	}
	if err := checkTrans(op, "transB", tB); err != nil {
		return err
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"m", m}, {"n", n}, {"k", k}, {"batch", batch}} {
		if err := checkDim(op, d.name, d.v); err != nil {
			return err
		}
	}
	ra, ca := m, k // A as stored
	if tA == Trans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB == Trans {
		rb, cb = n, k
	}
	am, err := mem(op, "a", h, a)
	if err != nil {
		return err
	}
	if err := checkMatrix(op, "a", "lda", am, ra, ca, lda, "strideA", strideA, batch); err != nil {
		return err
	}
	bm, err := mem(op, "b", h, b)
	if err != nil {
		return err
	}
	if err := checkMatrix(op, "b", "ldb", bm, rb, cb, ldb, "strideB", strideB, batch); err != nil {
		return err
	}
	cm, err := mem(op, "c", h, cc)
	if err != nil {
		return err
	}
	if err := checkMatrix(op, "c", "ldc", cm, m, n, ldc, "strideC", strideC, batch); err != nil {
		return err
	}
	if batch > 1 && m > 0 && n > 0 && strideC < (m-1)*ldc+n {
		return argErr(op, "strideC", "%d is less than the %d elements a %d×%d matrix with ldc %d spans: the results would overlap", strideC, (m-1)*ldc+n, m, n, ldc)
	}
	c.tA, c.tB, c.m, c.n, c.k, c.alpha, c.beta = tA, tB, m, n, k, float64(alpha), float64(beta)
	c.a, c.lda, c.strideA, c.b, c.ldb, c.strideB, c.c, c.ldc, c.strideC, c.batch = am, lda, strideA, bm, ldb, strideB, cm, ldc, strideC, batch
	return nil
}
