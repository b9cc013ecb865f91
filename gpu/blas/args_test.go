package blas_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// Every bad argument is refused before anything is queued, with an error
// that names it.
func TestBadArguments(t *testing.T) {
	f := newFixture(t)
	x, y := upload(f, make([]float32, 10)), upload(f, make([]float32, 10))
	a, b, c := upload(f, make([]float32, 12)), upload(f, make([]float32, 12)), upload(f, make([]float32, 12))
	var nilBuf *buffer.Buffer[float32]
	freed, err := buffer.New[float32](f.dev, 4)
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	h := f.h
	big := math.MaxInt32 + 1
	for _, tc := range []struct {
		name string
		code gpu.ErrorCode
		want string
		call func() error
	}{
		{"nil handle", gpu.ErrInvalidHandle, "nil handle", func() error { return blas.Axpy(nil, 1, 1, x, 1, y, 1) }},
		{"axpy n negative", gpu.ErrInvalidValue, "n: -1 is negative", func() error { return blas.Axpy(h, -1, 1, x, 1, y, 1) }},
		{"axpy n too big", gpu.ErrInvalidValue, "n: 2147483648 exceeds", func() error { return blas.Axpy(h, big, 1, x, 1, y, 1) }},
		{"axpy incx zero", gpu.ErrInvalidValue, "incx: 0", func() error { return blas.Axpy(h, 1, 1, x, 0, y, 1) }},
		{"axpy incy zero", gpu.ErrInvalidValue, "incy: 0", func() error { return blas.Axpy(h, 1, 1, x, 1, y, 0) }},
		{"axpy x nil", gpu.ErrInvalidValue, "x: nil buffer", func() error { return blas.Axpy(h, 1, 1, nilBuf, 1, y, 1) }},
		{"axpy y nil", gpu.ErrInvalidValue, "y: nil buffer", func() error { return blas.Axpy(h, 1, 1, x, 1, nil, 1) }},
		{"axpy x short", gpu.ErrInvalidValue, "x: buffer", func() error { return blas.Axpy(h, 11, 1, x, 1, y, 1) }},
		{"axpy y short strided", gpu.ErrInvalidValue, "y: buffer", func() error { return blas.Axpy(h, 6, 1, x, 1, y, -2) }},
		{"axpy x freed", gpu.ErrInvalidValue, "was freed", func() error { return blas.Axpy(h, 1, 1, freed, 1, y, 1) }},
		{"scal incx negative", gpu.ErrInvalidValue, "incx: -1: want a positive increment", func() error { return blas.Scal(h, 1, 2, x, -1) }},
		{"copy y short", gpu.ErrInvalidValue, "y: buffer", func() error { return blas.Copy(h, 10, x, 1, y, 2) }},
		{"dot x short", gpu.ErrInvalidValue, "x: buffer", func() error { _, err := blas.Dot(h, 4, x, 4, y, 1); return err }},
		{"dot to result nil", gpu.ErrInvalidValue, "result: nil buffer", func() error { return blas.DotTo(h, 1, x, 1, y, 1, nil) }},
		{"nrm2 incx negative", gpu.ErrInvalidValue, "incx", func() error { _, err := blas.Nrm2(h, 1, x, -1); return err }},
		{"nrm2 to result nil", gpu.ErrInvalidValue, "result: nil buffer", func() error { return blas.Nrm2To(h, 1, x, 1, nilBuf) }},
		{"gemv trans", gpu.ErrInvalidValue, "trans: Transpose(7)", func() error { return blas.Gemv(h, 7, 2, 2, 1, a, 2, x, 1, 0, y, 1) }},
		{"gemv m", gpu.ErrInvalidValue, "m: -2", func() error { return blas.Gemv(h, blas.NoTrans, -2, 2, 1, a, 2, x, 1, 0, y, 1) }},
		{"gemv n", gpu.ErrInvalidValue, "n: -2", func() error { return blas.Gemv(h, blas.NoTrans, 2, -2, 1, a, 2, x, 1, 0, y, 1) }},
		{"gemv lda", gpu.ErrInvalidValue, "lda: 2 is less than max(1, 3)", func() error { return blas.Gemv(h, blas.NoTrans, 2, 3, 1, a, 2, x, 1, 0, y, 1) }},
		{"gemv a short", gpu.ErrInvalidValue, "a: buffer", func() error { return blas.Gemv(h, blas.NoTrans, 4, 3, 1, a, 4, x, 1, 0, y, 1) }},
		{"gemv x short (trans)", gpu.ErrInvalidValue, "x: buffer", func() error {
			return blas.Gemv(h, blas.Trans, 11, 1, 1, upload(f, make([]float32, 11)), 1, x, 1, 0, y, 1)
		}},
		{"gemv y short", gpu.ErrInvalidValue, "y: buffer", func() error { return blas.Gemv(h, blas.NoTrans, 3, 2, 1, a, 2, x, 1, 0, y, 5) }},
		{"gemv incx", gpu.ErrInvalidValue, "incx: 0", func() error { return blas.Gemv(h, blas.NoTrans, 2, 2, 1, a, 2, x, 0, 0, y, 1) }},
		{"gemv a nil", gpu.ErrInvalidValue, "a: nil buffer", func() error { return blas.Gemv(h, blas.NoTrans, 2, 2, 1, nilBuf, 2, x, 1, 0, y, 1) }},
		{"gemm transA", gpu.ErrInvalidValue, "transA", func() error { return blas.Gemm(h, -1, blas.NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm transB", gpu.ErrInvalidValue, "transB", func() error { return blas.Gemm(h, blas.NoTrans, 2, 2, 2, 2, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm m", gpu.ErrInvalidValue, "m: -1", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, -1, 2, 2, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm n", gpu.ErrInvalidValue, "n: -1", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, -1, 2, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm k", gpu.ErrInvalidValue, "k: -1", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, -1, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm lda", gpu.ErrInvalidValue, "lda: 2 is less than max(1, 3)", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm lda trans", gpu.ErrInvalidValue, "lda: 2 is less than max(1, 3)", func() error { return blas.Gemm(h, blas.Trans, blas.NoTrans, 3, 2, 2, 1, a, 2, b, 2, 0, c, 2) }},
		{"gemm ldb", gpu.ErrInvalidValue, "ldb: 1 is less than max(1, 2)", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, b, 1, 0, c, 2) }},
		{"gemm ldc", gpu.ErrInvalidValue, "ldc: 0 is less than max(1, 2)", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, c, 0) }},
		{"gemm a short", gpu.ErrInvalidValue, "a: buffer", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 4, 2, 4, 1, a, 4, b, 2, 0, c, 2) }},
		{"gemm b short", gpu.ErrInvalidValue, "b: buffer", func() error { return blas.Gemm(h, blas.NoTrans, blas.Trans, 2, 4, 2, 1, a, 2, b, 4, 0, c, 4) }},
		{"gemm c short", gpu.ErrInvalidValue, "c: buffer", func() error {
			return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 7, 2, 1, a, 2, upload(f, make([]float32, 14)), 7, 0, c, 7)
		}},
		{"gemm c nil", gpu.ErrInvalidValue, "c: nil buffer", func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, nil, 2) }},
		{"batched batch", gpu.ErrInvalidValue, "batch: -1", func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 4, -1)
		}},
		{"batched strideA", gpu.ErrInvalidValue, "strideA: -4", func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, -4, b, 2, 4, 0, c, 2, 4, 2)
		}},
		{"batched strideB overflow", gpu.ErrInvalidValue, "strideB", func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, 4, b, 2, math.MaxInt64/2, 0, c, 2, 4, 3)
		}},
		{"batched a short", gpu.ErrInvalidValue, "a: buffer", func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, 5, b, 2, 4, 0, c, 2, 4, 3)
		}},
		{"batched strideC overlap", gpu.ErrInvalidValue, "strideC: 3 is less than the 4 elements", func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, 4, b, 2, 4, 0, c, 2, 3, 3)
		}},
	} {
		err := tc.call()
		require.Error(t, err, tc.name)
		var ge *gpu.Error
		if assert.True(t, errors.As(err, &ge), "%s: %T %v", tc.name, err, err) {
			assert.Equal(t, tc.code, ge.Code, "%s: %v", tc.name, err)
		}
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
	// Nothing was queued, and the stream is healthy.
	require.NoError(t, f.s.Synchronize())
	assert.Equal(t, make([]float32, 12), download(f, c))
}

// A destroyed or nil handle is refused; the stream outlives its handles.
func TestDestroyedHandle(t *testing.T) {
	f := newFixture(t)
	h, err := blas.New(f.s)
	require.NoError(t, err)
	x := upload(f, []float64{3, 4})
	n, err := blas.Nrm2(h, 2, x, 1)
	require.NoError(t, err)
	assert.InDelta(t, 5.0, n, 1e-12)
	require.NoError(t, h.Destroy())
	assert.ErrorIs(t, h.Destroy(), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, blas.Scal(h, 2, 2, x, 1), gpu.ErrInvalidHandle)
	_, err = blas.Nrm2(h, 2, x, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	_, err = blas.New(nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	var nilHandle *blas.Handle
	assert.ErrorIs(t, nilHandle.Destroy(), gpu.ErrInvalidHandle)
	assert.Nil(t, nilHandle.Stream())
	assert.Same(t, f.s, f.h.Stream())
}
