package blas

import "github.com/hipgo/hipgo/gpu/internal/core"

// Axpy computes y = alpha·x + y over n elements of x and y with
// increments incx and incy (hipblasSaxpy, hipblasDaxpy). Negative
// increments walk the vector from its end, as in reference BLAS.
func Axpy[T Float](h *Handle, n int, alpha T, x Array[T], incx int, y Array[T], incy int) error {
	c := newCall[T]("axpy", kAxpy)
	c.n, c.alpha, c.incx, c.incy = n, float64(alpha), incx, incy
	if err := vectors(c, h, x, y, false); err != nil {
		return err
	}
	return h.submit(c)
}

// Scal computes x = alpha·x over n elements with a positive increment
// incx (hipblasSscal, hipblasDscal).
func Scal[T Float](h *Handle, n int, alpha T, x Array[T], incx int) error {
	c := newCall[T]("scal", kScal)
	c.n, c.alpha, c.incx = n, float64(alpha), incx
	if err := vectors(c, h, x, nil, true); err != nil {
		return err
	}
	return h.submit(c)
}

// Copy copies n elements of x into y (hipblasScopy, hipblasDcopy).
func Copy[T Float](h *Handle, n int, x Array[T], incx int, y Array[T], incy int) error {
	c := newCall[T]("copy", kCopy)
	c.n, c.incx, c.incy = n, incx, incy
	if err := vectors(c, h, x, y, false); err != nil {
		return err
	}
	return h.submit(c)
}

// DotTo writes the dot product of n elements of x and y into result's
// element 0 when the stream reaches it (device pointer mode).
func DotTo[T Float](h *Handle, n int, x Array[T], incx int, y Array[T], incy int, result Array[T]) error {
	c := newCall[T]("dot", kDot)
	c.n, c.incx, c.incy = n, incx, incy
	if err := vectors(c, h, x, y, false); err != nil {
		return err
	}
	return submitTo(h, c, result)
}

// Dot returns the dot product of n elements of x and y (hipblasSdot in
// host pointer mode): it queues the product and waits for the stream.
func Dot[T Float](h *Handle, n int, x Array[T], incx int, y Array[T], incy int) (T, error) {
	c := newCall[T]("dot", kDot)
	c.n, c.incx, c.incy = n, incx, incy
	if err := vectors(c, h, x, y, false); err != nil {
		return 0, err
	}
	return value[T](h, c)
}

// Nrm2To writes the Euclidean norm of n elements of x (positive
// increment incx) into result's element 0 when the stream reaches it.
func Nrm2To[T Float](h *Handle, n int, x Array[T], incx int, result Array[T]) error {
	c := newCall[T]("nrm2", kNrm2)
	c.n, c.incx = n, incx
	if err := vectors(c, h, x, nil, true); err != nil {
		return err
	}
	return submitTo(h, c, result)
}

// Nrm2 returns the Euclidean norm of n elements of x; it waits for the
// stream.
func Nrm2[T Float](h *Handle, n int, x Array[T], incx int) (T, error) {
	c := newCall[T]("nrm2", kNrm2)
	c.n, c.incx = n, incx
	if err := vectors(c, h, x, nil, true); err != nil {
		return 0, err
	}
	return value[T](h, c)
}

// vectors checks the handle, n, and the vectors x and (when y is not nil)
// y with the call's increments, and records their memory.
func vectors[T Float](c *call, h *Handle, x, y Array[T], positive bool) error {
	if err := checkHandle(c.op, h); err != nil {
		return err
	}
	if err := checkDim(c.op, "n", c.n); err != nil {
		return err
	}
	var err error
	if c.x, err = vector(c, h, "x", x, c.incx, positive); err != nil {
		return err
	}
	if c.kind == kScal || c.kind == kNrm2 {
		return nil
	}
	c.y, err = vector(c, h, "y", y, c.incy, positive)
	return err
}

// vector checks the vector called name with increment inc and returns its
// memory.
func vector[T Float](c *call, h *Handle, name string, v Array[T], inc int, positive bool) (*core.Mem, error) {
	if err := checkInc(c.op, "inc"+name, inc, positive); err != nil {
		return nil, err
	}
	m, err := mem(c.op, name, h, v)
	if err != nil {
		return nil, err
	}
	if err := checkVector(c.op, name, m, c.n, inc); err != nil {
		return nil, err
	}
	return m, nil
}

// submitTo queues c with its scalar result written to result's element 0.
func submitTo[T Float](h *Handle, c *call, result Array[T]) error {
	r, err := mem(c.op, "result", h, result)
	if err != nil {
		return err
	}
	c.result = r
	return h.submit(c)
}
