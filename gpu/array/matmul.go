package array

import (
	"errors"
	"fmt"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A stream's BLAS handle, made at its first MatMul and destroyed with
// the stream (as CuPy keeps one cuBLAS handle a device): a handle is
// costly to make (cublasCreate), so a call does not make its own.

// blasHolder is a stream's handle, made once.
type blasHolder struct {
	mu   sync.Mutex
	h    *blas.Handle
	dead bool // the stream is destroyed: no handle is made
}

// handles maps a stream to its *blasHolder. The handle keeps its stream
// reachable, so the entry goes only when the stream is destroyed.
var handles sync.Map

// handleOf is s's BLAS handle.
func handleOf(op string, s *stream.Stream) (*blas.Handle, error) {
	v, ok := handles.Load(s)
	if !ok {
		var loaded bool
		v, loaded = handles.LoadOrStore(s, &blasHolder{})
		if !loaded {
			cs := core.StreamOf(s)
			if cs == nil || !cs.OnDestroy(func() { releaseHandle(s) }) {
				releaseHandle(s)
				return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "stream destroyed")
			}
		}
	}
	hd := v.(*blasHolder)
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if hd.dead {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "stream destroyed")
	}
	if hd.h == nil {
		h, err := blas.New(s)
		if err != nil {
			return nil, err
		}
		hd.h = h
	}
	return hd.h, nil
}

// releaseHandle destroys a destroyed stream's handle (its work ended
// with the stream).
func releaseHandle(s *stream.Stream) {
	v, ok := handles.LoadAndDelete(s)
	if !ok {
		return
	}
	hd := v.(*blasHolder)
	hd.mu.Lock()
	defer hd.mu.Unlock()
	hd.dead = true
	if hd.h != nil {
		_ = hd.h.Destroy() // says the stream went first; it releases all the same
		hd.h = nil
	}
}

// matrixOperand is a matrix operand's batch, stored rows and columns.
func matrixOperand(shape []int) (batch, rows, cols int, ok bool) {
	switch len(shape) {
	case 2:
		return 1, shape[0], shape[1], true
	case 3:
		return shape[0], shape[1], shape[2], true
	}
	return 0, 0, 0, false
}

// MatMul is the matrix product of a and b (cupy.matmul, a @ b) through
// gpu/blas's GEMM: a m×k and b k×n make an m×n array. Three dimensions
// are a batch of matrices, multiplied pairwise by one strided-batched
// GEMM: (B, m, k) by (B, k, n) is (B, m, n); a 2-D operand, or a batch
// of one, is used by every matrix of the other (NumPy's broadcasting of
// the batch). The work is queued on a's stream, through a BLAS handle
// the stream keeps until it is destroyed. Other ranks are a
// *ShapeError.
func MatMul[T Float](a, b *Array[T]) (*Array[T], error) {
	return matmul("array matmul", blas.NoTrans, blas.NoTrans, a, b)
}

// MatMulTrans is MatMul of op(a) and op(b), each matrix transposed
// where its Transpose says (cupy.matmul(a.mT, b) and so on, with no
// copy): with tA Trans, a is k×m (each of its matrices), and with tB
// Trans, b is n×k.
func MatMulTrans[T Float](tA, tB blas.Transpose, a, b *Array[T]) (*Array[T], error) {
	return matmul("array matmul trans", tA, tB, a, b)
}

func matmul[T Float](op string, tA, tB blas.Transpose, a, b *Array[T]) (out *Array[T], err error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	if err := b.check(op); err != nil {
		return nil, err
	}
	if a.s.Device() != b.s.Device() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "operands on %s and %s", a.s.Device(), b.s.Device())
	}
	for _, t := range []blas.Transpose{tA, tB} {
		if t != blas.NoTrans && t != blas.Trans {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "transpose %v", t)
		}
	}
	ba, ra, ca, okA := matrixOperand(a.shape)
	bb, rb, cb, okB := matrixOperand(b.shape)
	if !okA || !okB {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape}, Reason: "matrices have two dimensions, batches of them three"}
	}
	m, k := ra, ca
	if tA == blas.Trans {
		m, k = ca, ra
	}
	kb, n := rb, cb
	if tB == blas.Trans {
		kb, n = cb, rb
	}
	if k != kb {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape}, Reason: fmt.Sprintf("inner dimensions %d and %d differ (transposes %v, %v)", k, kb, tA, tB)}
	}
	if ba != bb && ba != 1 && bb != 1 {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape}, Reason: fmt.Sprintf("batches of %d and %d", ba, bb)}
	}
	batch := max(ba, bb)
	shape := []int{m, n}
	if len(a.shape) == 3 || len(b.shape) == 3 {
		shape = []int{batch, m, n}
	}
	h, err := handleOf(op, a.s)
	if err != nil {
		return nil, err
	}
	out, err = alloc[T](op, a.s, shape)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, out.Free())
			out = nil
		}
	}()
	switch {
	case out.size == 0:
		return out, nil
	case k == 0:
		return out, stream.Fill(a.s, out.buf, T(0))
	case batch == 1:
		return out, blas.Gemm(h, tA, tB, m, n, k, 1, a.data, ca, b.data, cb, 0, out.data, n)
	}
	strideA, strideB := ra*ca, rb*cb
	if ba == 1 {
		strideA = 0
	}
	if bb == 1 {
		strideB = 0
	}
	return out, blas.GemmStridedBatched(h, tA, tB, m, n, k, 1, a.data, ca, strideA, b.data, cb, strideB, 0, out.data, n, m*n, batch)
}
