package blas

import "github.com/hipgo/hipgo/gpu"

func newRocblas() (backend, error) {
	return nil, gpu.Errorf(gpu.ErrorNotSupported, "blas create", "rocBLAS is not bound yet")
}
