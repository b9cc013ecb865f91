package blas_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A Handle that New did not make (a zero value) is refused by every
// routine and by Destroy; none panics. So is a zero Stream by New.
func TestZeroValues(t *testing.T) {
	f := newFixture(t)
	x, y := upload(f, []float32{1, 2}), upload(f, []float32{3, 4})
	a, c := upload(f, []float32{1, 2, 3, 4}), upload(f, []float32{0, 0, 0, 0})
	h := &blas.Handle{}
	assert.Nil(t, h.Stream())
	ops := map[string]func() error{
		"Destroy": h.Destroy,
		"Axpy":    func() error { return blas.Axpy(h, 2, 1, x, 1, y, 1) },
		"Scal":    func() error { return blas.Scal(h, 2, 1, x, 1) },
		"Copy":    func() error { return blas.Copy(h, 2, x, 1, y, 1) },
		"DotTo":   func() error { return blas.DotTo(h, 2, x, 1, y, 1, c) },
		"Dot":     func() error { _, err := blas.Dot(h, 2, x, 1, y, 1); return err },
		"Nrm2To":  func() error { return blas.Nrm2To(h, 2, x, 1, c) },
		"Nrm2":    func() error { _, err := blas.Nrm2(h, 2, x, 1); return err },
		"Gemv":    func() error { return blas.Gemv(h, blas.NoTrans, 2, 2, 1, a, 2, x, 1, 0, y, 1) },
		"Gemm":    func() error { return blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, a, 2, 0, c, 2) },
		"GemmSB": func() error {
			return blas.GemmStridedBatched(h, blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, a, 2, 4, a, 2, 4, 0, c, 2, 4, 1)
		},
		"New(zero)": func() error { _, err := blas.New(&stream.Stream{}); return err },
	}
	for name, op := range ops {
		var err error
		if assert.NotPanics(t, func() { err = op() }, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidHandle, name)
			assert.ErrorContains(t, err, "zero", name)
		}
	}
}
