package blas

import (
	"unsafe"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
)

// gonumBackend runs calls on the cpu agent with gonum's implementation
// (its assembly kernels), as host work in stream order: the cpu agent's
// device memory is host memory.
type gonumBackend struct{}

func (gonumBackend) work(c *call) (func() error, hostref.NativeFunc) {
	return func() error {
		if c.f64 {
			run[float64](c)
		} else {
			run[float32](c)
		}
		return nil
	}, nil
}

func (gonumBackend) destroy(*stream.Stream) error { return nil }

func (gonumBackend) release(*gpu.Device) error { return nil }

// view is the memory of m as a Go slice. It is valid while the work runs:
// Free waits for the buffer's last user.
func view[T Float](m *core.Mem) []T {
	if m == nil {
		return nil
	}
	return unsafe.Slice((*T)(hostmem.At(m.Addr())), m.Len())
}

func trans(t Transpose) gblas.Transpose {
	if t == Trans {
		return gblas.Trans
	}
	return gblas.NoTrans
}

// vec is the span of n elements with increment inc as gonum wants it.
func vec[T Float](m *core.Mem, n, inc int) []T {
	s := view[T](m)
	if n == 0 {
		return s[:0]
	}
	if inc < 0 {
		inc = -inc
	}
	return s[:1+(n-1)*inc]
}

// run carries out c. The arguments were checked, so gonum does not panic.
func run[T Float](c *call) {
	var impl gonum.Implementation
	alpha, beta := T(c.alpha), T(c.beta)
	switch c.kind {
	case kAxpy:
		x, y := vec[T](c.x, c.n, c.incx), vec[T](c.y, c.n, c.incy)
		switch x := any(x).(type) {
		case []float32:
			impl.Saxpy(c.n, float32(alpha), x, c.incx, any(y).([]float32), c.incy)
		case []float64:
			impl.Daxpy(c.n, float64(alpha), x, c.incx, any(y).([]float64), c.incy)
		}
	case kScal:
		switch x := any(vec[T](c.x, c.n, c.incx)).(type) {
		case []float32:
			impl.Sscal(c.n, float32(alpha), x, c.incx)
		case []float64:
			impl.Dscal(c.n, float64(alpha), x, c.incx)
		}
	case kCopy:
		x, y := vec[T](c.x, c.n, c.incx), vec[T](c.y, c.n, c.incy)
		switch x := any(x).(type) {
		case []float32:
			impl.Scopy(c.n, x, c.incx, any(y).([]float32), c.incy)
		case []float64:
			impl.Dcopy(c.n, x, c.incx, any(y).([]float64), c.incy)
		}
	case kDot:
		x, y := vec[T](c.x, c.n, c.incx), vec[T](c.y, c.n, c.incy)
		r := view[T](c.result)
		switch x := any(x).(type) {
		case []float32:
			r[0] = T(impl.Sdot(c.n, x, c.incx, any(y).([]float32), c.incy))
		case []float64:
			r[0] = T(impl.Ddot(c.n, x, c.incx, any(y).([]float64), c.incy))
		}
	case kNrm2:
		r := view[T](c.result)
		switch x := any(vec[T](c.x, c.n, c.incx)).(type) {
		case []float32:
			r[0] = T(impl.Snrm2(c.n, x, c.incx))
		case []float64:
			r[0] = T(impl.Dnrm2(c.n, x, c.incx))
		}
	case kGemv:
		a, lx, ly := view[T](c.a), c.n, c.m
		if c.tA == Trans {
			lx, ly = c.m, c.n
		}
		x, y := vec[T](c.x, lx, c.incx), vec[T](c.y, ly, c.incy)
		switch a := any(a).(type) {
		case []float32:
			impl.Sgemv(trans(c.tA), c.m, c.n, float32(alpha), a, c.lda, any(x).([]float32), c.incx, float32(beta), any(y).([]float32), c.incy)
		case []float64:
			impl.Dgemv(trans(c.tA), c.m, c.n, float64(alpha), a, c.lda, any(x).([]float64), c.incx, float64(beta), any(y).([]float64), c.incy)
		}
	case kGemm:
		if c.m == 0 || c.n == 0 {
			return
		}
		a, b, cc := view[T](c.a), view[T](c.b), view[T](c.c)
		for i := 0; i < c.batch; i++ {
			ci := cc[i*c.strideC:]
			if c.k == 0 || c.alpha == 0 {
				// BLAS does not read A and B here. gonum does: with alpha 0
				// it adds 0·A·B, NaN where they hold NaN or Inf, and with k
				// 0 it wants them long enough for m and n rows, which they
				// need not be, and panics.
				scale(ci, c.m, c.n, c.ldc, beta)
				continue
			}
			ai, bi := a[i*c.strideA:], b[i*c.strideB:]
			switch ai := any(ai).(type) {
			case []float32:
				impl.Sgemm(trans(c.tA), trans(c.tB), c.m, c.n, c.k, float32(alpha), ai, c.lda, any(bi).([]float32), c.ldb, float32(beta), any(ci).([]float32), c.ldc)
			case []float64:
				impl.Dgemm(trans(c.tA), trans(c.tB), c.m, c.n, c.k, float64(alpha), ai, c.lda, any(bi).([]float64), c.ldb, float64(beta), any(ci).([]float64), c.ldc)
			}
		}
	}
}

// scale sets the m×n matrix c with leading dimension ldc to beta·c: all of
// a gemm with k = 0 or alpha = 0. beta = 0 zeroes c, NaNs included, as in
// BLAS.
func scale[T Float](c []T, m, n, ldc int, beta T) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}
