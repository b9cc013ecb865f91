package blas

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// cuBLAS is column-major. A row-major m×n matrix with leading dimension ld
// is, read column-major, its n×m transpose with the same ld, so row-major
// C = op(A)·op(B) is computed as column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: the
// operands swap, m and n swap, and the transposes stay as given.

var cublasLib struct {
	once sync.Once
	api  *vendorAPI
	err  error
}

// cublasSymbols names cuBLAS's entry for each routine.
var cublasSymbols = map[string]string{
	"create": "cublasCreate_v2", "destroy": "cublasDestroy_v2",
	"setStream": "cublasSetStream_v2", "setPointerMode": "cublasSetPointerMode_v2",
	"saxpy": "cublasSaxpy_v2", "daxpy": "cublasDaxpy_v2", "sscal": "cublasSscal_v2", "dscal": "cublasDscal_v2",
	"scopy": "cublasScopy_v2", "dcopy": "cublasDcopy_v2", "sdot": "cublasSdot_v2", "ddot": "cublasDdot_v2",
	"snrm2": "cublasSnrm2_v2", "dnrm2": "cublasDnrm2_v2", "sgemv": "cublasSgemv_v2", "dgemv": "cublasDgemv_v2",
	"sgemm": "cublasSgemm_v2", "dgemm": "cublasDgemm_v2",
	"sgemmStridedBatched": "cublasSgemmStridedBatched", "dgemmStridedBatched": "cublasDgemmStridedBatched",
}

func loadCublas() (*vendorAPI, error) {
	cublasLib.once.Do(func() {
		h, err := vendorlib.CuBLAS.Open()
		if err != nil {
			cublasLib.err = gpu.Errorf(gpu.ErrNotSupported, "blas create", "no cuBLAS: %v", err)
			return
		}
		cublasLib.api, cublasLib.err = resolve("cuBLAS", h, cublasSymbols, 0, 1, cublasErr)
		if cublasLib.err == nil {
			// Optional (CUDA 11.2+): without it cuBLAS uses its default pool.
			if p := h.Sym("cublasSetWorkspace_v2"); p != 0 {
				cublasLib.api.fns["setWorkspace"] = p
				cublasLib.api.names["setWorkspace"] = "cublasSetWorkspace_v2"
			}
		}
	})
	return cublasLib.api, cublasLib.err
}

// cublasWorkspace is the device memory a handle gives cuBLAS for its
// kernels' scratch (cublasSetWorkspace): 32 MiB, what NVIDIA suggests for
// Hopper. Without one, cuBLAS on a stream of the program's own picks GEMM
// kernels from a smaller default pool.
const cublasWorkspace = 32 << 20

func newCublas(dev *gpu.Device) (*vendor, error) {
	api, err := loadCublas()
	if err != nil {
		return nil, err
	}
	b := &vendor{api: api}
	if _, ok := api.fns["setWorkspace"]; ok {
		if b.ws, err = buffer.New[byte](dev, cublasWorkspace); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// cublasStatus_t values the errors name.
var cublasStatus = map[uintptr]vendorStatus{
	1:  {"CUBLAS_STATUS_NOT_INITIALIZED", gpu.ErrNotInitialized},
	3:  {"CUBLAS_STATUS_ALLOC_FAILED", gpu.ErrOutOfMemory},
	7:  {"CUBLAS_STATUS_INVALID_VALUE", gpu.ErrInvalidValue},
	8:  {"CUBLAS_STATUS_ARCH_MISMATCH", gpu.ErrNoBinaryForGpu},
	11: {"CUBLAS_STATUS_MAPPING_ERROR", gpu.ErrIllegalAddress},
	13: {"CUBLAS_STATUS_EXECUTION_FAILED", gpu.ErrLaunchFailure},
	14: {"CUBLAS_STATUS_INTERNAL_ERROR", gpu.ErrUnknown},
	15: {"CUBLAS_STATUS_NOT_SUPPORTED", gpu.ErrNotSupported},
	16: {"CUBLAS_STATUS_LICENSE_ERROR", gpu.ErrNotSupported},
}

var cublasErr = statusErr(cublasStatus, "cublasStatus")
