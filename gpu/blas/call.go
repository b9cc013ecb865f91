package blas

import (
	"math"
	"strconv"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// kind is a routine.
type kind int

const (
	kAxpy kind = iota
	kScal
	kCopy
	kDot
	kNrm2
	kGemv
	kGemm
)

// call is one checked routine call, for either element type: scalars are
// held as float64, which holds every float32 exactly.
type call struct {
	op     string
	kind   kind
	f64    bool
	tA, tB Transpose
	m, n   int
	k      int
	alpha  float64
	beta   float64

	a, b, c       *core.Mem
	lda, ldb, ldc int
	x, y, result  *core.Mem
	incx, incy    int
	// strided batches of gemm: batch matrices, each stride elements after
	// the one before (batch is 1 for a plain gemm).
	strideA, strideB, strideC int
	batch                     int

	scalars32 [2]float32 // alpha and beta where a library reads them by pointer
}

func (c *call) reads() []*core.Mem {
	var r []*core.Mem
	for _, m := range [...]*core.Mem{c.a, c.b, c.x} {
		if m != nil {
			r = append(r, m)
		}
	}
	switch c.kind {
	case kAxpy, kDot, kGemv: // y is read too (gemv: when beta ≠ 0; it is declared anyway)
		if c.y != nil {
			r = append(r, c.y)
		}
	}
	if c.kind == kGemm && c.c != nil {
		r = append(r, c.c)
	}
	return r
}

func (c *call) writes() []*core.Mem {
	switch c.kind {
	case kScal:
		return []*core.Mem{c.x}
	case kAxpy, kCopy, kGemv:
		return []*core.Mem{c.y}
	case kDot, kNrm2:
		return []*core.Mem{c.result}
	case kGemm:
		return []*core.Mem{c.c}
	}
	return nil
}

func isF64[T Float]() bool {
	var zero T
	_, ok := any(zero).(float64)
	return ok
}

func newCall[T Float](op string, k kind) *call {
	return &call{op: opName[T](op), kind: k, f64: isF64[T](), batch: 1}
}

// opName is the routine's BLAS name: "sgemm", "dgemm".
func opName[T Float](op string) string {
	if isF64[T]() {
		return "blas d" + op
	}
	return "blas s" + op
}

func argErr(op, name, format string, args ...any) error {
	return gpu.Errorf(gpu.ErrInvalidValue, op, name+": "+format, args...)
}

func itoa(v int) string { return strconv.Itoa(v) }

// checkHandle reports a nil handle, or a zero one, which New did not
// make.
func checkHandle(op string, h *Handle) error {
	if h == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil handle")
	}
	if h.be == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "handle not made by blas.New (a zero Handle)")
	}
	return nil
}

// checkDim reports a negative size or one the vendor libraries' 32-bit
// integers cannot hold.
func checkDim(op, name string, v int) error {
	if v < 0 {
		return argErr(op, name, "%d is negative", v)
	}
	if v > math.MaxInt32 {
		return argErr(op, name, "%d exceeds %d", v, math.MaxInt32)
	}
	return nil
}

// checkInc reports a zero increment, or a negative one where positive is
// needed, or one out of 32-bit range.
func checkInc(op, name string, v int, positive bool) error {
	if v == 0 || positive && v < 0 {
		want := "nonzero"
		if positive {
			want = "positive"
		}
		return argErr(op, name, "%d: want a %s increment", v, want)
	}
	if v > math.MaxInt32 || v < -math.MaxInt32 {
		return argErr(op, name, "%d is out of 32-bit range", v)
	}
	return nil
}

func checkTrans(op, name string, t Transpose) error {
	if t != NoTrans && t != Trans {
		return argErr(op, name, "%v: want NoTrans or Trans", t)
	}
	return nil
}

// mem returns an Array's memory, checked for use on h's device.
func mem[T Float](op, name string, h *Handle, v Array[T]) (*core.Mem, error) {
	m, _ := core.MemOf(v)
	if v == nil || m == nil {
		return nil, argErr(op, name, "nil buffer")
	}
	if err := m.CheckAccess(op+" "+name, h.s.Device()); err != nil {
		return nil, err
	}
	return m, nil
}

// checkVector reports a buffer too short for n elements with increment inc.
func checkVector(op, name string, m *core.Mem, n, inc int) error {
	if n == 0 {
		return nil
	}
	if inc < 0 {
		inc = -inc
	}
	if need := 1 + (n-1)*inc; need > m.Len() {
		return argErr(op, name, "%s is too short: %d elements with increment %d need %d", m, n, inc, need)
	}
	return nil
}

// checkMatrix checks a stored rows×cols row-major matrix with leading
// dimension ld (named ldName), batch of them stride elements apart.
func checkMatrix(op, name, ldName string, m *core.Mem, rows, cols, ld int, strideName string, stride, batch int) error {
	if err := checkDim(op, ldName, ld); err != nil {
		return err
	}
	if ld < max(1, cols) {
		return argErr(op, ldName, "%d is less than max(1, %d), the matrix's stored width", ld, cols)
	}
	if rows == 0 || cols == 0 || batch == 0 {
		return nil
	}
	span := (rows-1)*ld + cols
	need := span
	if batch > 1 {
		if stride < 0 {
			return argErr(op, strideName, "%d is negative", stride)
		}
		if stride > (math.MaxInt64-span)/(batch-1) {
			return argErr(op, strideName, "%d × %d batches overflows", stride, batch)
		}
		need = (batch-1)*stride + span
	}
	if need > m.Len() {
		return argErr(op, name, "%s is too short: %d elements needed", m, need)
	}
	return nil
}
