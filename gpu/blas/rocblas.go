package blas

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// rocBLAS runs on HIP streams, and the rocm agent's streams are HSA queues
// that HIP does not know. A call therefore runs as host work once the
// stream has drained (how the rocm agent runs all agent work), on HIP's
// null stream, and waits for it (hipDeviceSynchronize) before the stream
// goes on. It has not run on AMD hardware: the prototypes follow the
// public rocblas-functions.h, and the logic is tested against a fake.

// rocblasSymbols names rocBLAS's entry for each routine.
var rocblasSymbols = map[string]string{
	"create": "rocblas_create_handle", "destroy": "rocblas_destroy_handle",
	"setStream": "rocblas_set_stream", "setPointerMode": "rocblas_set_pointer_mode",
	"saxpy": "rocblas_saxpy", "daxpy": "rocblas_daxpy", "sscal": "rocblas_sscal", "dscal": "rocblas_dscal",
	"scopy": "rocblas_scopy", "dcopy": "rocblas_dcopy", "sdot": "rocblas_sdot", "ddot": "rocblas_ddot",
	"snrm2": "rocblas_snrm2", "dnrm2": "rocblas_dnrm2", "sgemv": "rocblas_sgemv", "dgemv": "rocblas_dgemv",
	"sgemm": "rocblas_sgemm", "dgemm": "rocblas_dgemm",
	"sgemmStridedBatched": "rocblas_sgemm_strided_batched", "dgemmStridedBatched": "rocblas_dgemm_strided_batched",
}

// rocblas_operation values.
const (
	rocblasOpNone      = 111
	rocblasOpTranspose = 112
)

var rocblasLib struct {
	once sync.Once
	api  *vendorAPI
	err  error
}

func loadRocblas() (*vendorAPI, error) {
	rocblasLib.once.Do(func() {
		hip, err := vendorlib.OpenHIP()
		if err != nil {
			rocblasLib.err = gpu.Errorf(gpu.ErrNotSupported, "blas create", "no rocBLAS: %v", err)
			return
		}
		h, err := vendorlib.RocBLAS.Open()
		if err != nil {
			rocblasLib.err = gpu.Errorf(gpu.ErrNotSupported, "blas create", "no rocBLAS: %v", err)
			return
		}
		a, err := resolve("rocBLAS", h, rocblasSymbols, rocblasOpNone, rocblasOpTranspose, rocblasErr)
		if err != nil {
			rocblasLib.err = err
			return
		}
		a.after = func() error {
			if r := a.call(hip.DeviceSynchronize); r != 0 {
				return gpu.Errorf(gpu.ErrLaunchFailure, "blas", "hipDeviceSynchronize: hipError %d", r)
			}
			return nil
		}
		rocblasLib.api = a
	})
	return rocblasLib.api, rocblasLib.err
}

func newRocblas() (backend, error) {
	api, err := loadRocblas()
	if err != nil {
		return nil, err
	}
	return &vendor{api: api}, nil
}

// rocblas_status values the errors name.
var rocblasStatus = map[uintptr]vendorStatus{
	1:  {"rocblas_status_invalid_handle", gpu.ErrInvalidHandle},
	2:  {"rocblas_status_not_implemented", gpu.ErrNotSupported},
	3:  {"rocblas_status_invalid_pointer", gpu.ErrInvalidValue},
	4:  {"rocblas_status_invalid_size", gpu.ErrInvalidValue},
	5:  {"rocblas_status_memory_error", gpu.ErrOutOfMemory},
	6:  {"rocblas_status_internal_error", gpu.ErrUnknown},
	11: {"rocblas_status_invalid_value", gpu.ErrInvalidValue},
}

var rocblasErr = statusErr(rocblasStatus, "rocblas_status")
