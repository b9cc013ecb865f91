package blas

import "github.com/hipgo/hipgo/gpu"

func newCublas() (backend, error) {
	return nil, gpu.Errorf(gpu.ErrorNotSupported, "blas create", "cuBLAS is not bound yet")
}
