package blas

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
)

// cuBLAS is column-major. A row-major m×n matrix with leading dimension ld
// is, read column-major, its n×m transpose with the same ld, so row-major
// C = op(A)·op(B) is computed as column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: the
// operands swap, m and n swap, and the transposes stay as given.

// cublasAPI holds libcublas's entry points.
type cublasAPI struct {
	create, destroy, setStream, setPointerMode uintptr
	saxpy, daxpy, sscal, dscal, scopy, dcopy   uintptr
	sdot, ddot, snrm2, dnrm2                   uintptr
	sgemv, dgemv, sgemm, dgemm                 uintptr
	sgemmBatched, dgemmBatched                 uintptr
}

var cublasLib struct {
	once sync.Once
	api  cublasAPI
	err  error
}

// cublasNames are tried in order after HIPGO_CUBLAS_LIBRARY: the loader's
// search path, then the CUDA toolkit's usual homes.
var cublasNames = []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so"}

var cublasDirs = []string{"/usr/local/cuda/lib64", "/usr/local/cuda-13.0/lib64", "/usr/local/cuda-13/lib64", "/usr/local/cuda-12/lib64", "/usr/lib/x86_64-linux-gnu"}

func loadCublas() (*cublasAPI, error) {
	cublasLib.once.Do(func() {
		var tried []string
		var h uintptr
		try := func(name string) bool {
			var err error
			if h, err = purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
				return true
			}
			tried = append(tried, name)
			return false
		}
		found := false
		if v := os.Getenv("HIPGO_CUBLAS_LIBRARY"); v != "" {
			found = try(v)
		} else {
			candidates := cublasNames
			for _, d := range cublasDirs {
				for _, n := range cublasNames[:2] {
					if p := filepath.Join(d, n); fileExists(p) {
						candidates = append(candidates, p)
					}
				}
			}
			for _, n := range candidates {
				if found = try(n); found {
					break
				}
			}
		}
		if !found {
			cublasLib.err = gpu.Errorf(gpu.ErrorNotSupported, "blas create", "no cuBLAS: cannot open any of %v (set HIPGO_CUBLAS_LIBRARY)", tried)
			return
		}
		cublasLib.err = cublasLib.api.resolve(h)
	})
	return &cublasLib.api, cublasLib.err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (a *cublasAPI) resolve(h uintptr) error {
	for _, s := range []struct {
		p    *uintptr
		name string
	}{
		{&a.create, "cublasCreate_v2"}, {&a.destroy, "cublasDestroy_v2"},
		{&a.setStream, "cublasSetStream_v2"}, {&a.setPointerMode, "cublasSetPointerMode_v2"},
		{&a.saxpy, "cublasSaxpy_v2"}, {&a.daxpy, "cublasDaxpy_v2"},
		{&a.sscal, "cublasSscal_v2"}, {&a.dscal, "cublasDscal_v2"},
		{&a.scopy, "cublasScopy_v2"}, {&a.dcopy, "cublasDcopy_v2"},
		{&a.sdot, "cublasSdot_v2"}, {&a.ddot, "cublasDdot_v2"},
		{&a.snrm2, "cublasSnrm2_v2"}, {&a.dnrm2, "cublasDnrm2_v2"},
		{&a.sgemv, "cublasSgemv_v2"}, {&a.dgemv, "cublasDgemv_v2"},
		{&a.sgemm, "cublasSgemm_v2"}, {&a.dgemm, "cublasDgemm_v2"},
		{&a.sgemmBatched, "cublasSgemmStridedBatched"}, {&a.dgemmBatched, "cublasDgemmStridedBatched"},
	} {
		p, err := purego.Dlsym(h, s.name)
		if err != nil {
			return gpu.Errorf(gpu.ErrorNotSupported, "blas create", "cuBLAS lacks %s: %v", s.name, err)
		}
		*s.p = p
	}
	return nil
}

// cublasBackend holds one cuBLAS handle, created by the first call on the
// stream's processor thread (where the device's context is current) and
// used only there, in stream order.
type cublasBackend struct {
	api    *cublasAPI
	handle uintptr
	stream uintptr // the CUDA stream the handle is set to
}

func newCublas() (backend, error) {
	api, err := loadCublas()
	if err != nil {
		return nil, err
	}
	return &cublasBackend{api: api}, nil
}

// cublasStatus_t values the errors name.
var cublasStatus = map[uintptr]struct {
	name string
	code gpu.ErrorCode
}{
	1:  {"CUBLAS_STATUS_NOT_INITIALIZED", gpu.ErrorNotInitialized},
	3:  {"CUBLAS_STATUS_ALLOC_FAILED", gpu.ErrorOutOfMemory},
	7:  {"CUBLAS_STATUS_INVALID_VALUE", gpu.ErrorInvalidValue},
	8:  {"CUBLAS_STATUS_ARCH_MISMATCH", gpu.ErrorNoBinaryForGpu},
	11: {"CUBLAS_STATUS_MAPPING_ERROR", gpu.ErrorIllegalAddress},
	13: {"CUBLAS_STATUS_EXECUTION_FAILED", gpu.ErrorLaunchFailure},
	14: {"CUBLAS_STATUS_INTERNAL_ERROR", gpu.ErrorUnknown},
	15: {"CUBLAS_STATUS_NOT_SUPPORTED", gpu.ErrorNotSupported},
	16: {"CUBLAS_STATUS_LICENSE_ERROR", gpu.ErrorNotSupported},
}

func cublasErr(op, fn string, st uintptr) error {
	if st == 0 {
		return nil
	}
	s, ok := cublasStatus[st]
	if !ok {
		s.name, s.code = fmt.Sprintf("cublasStatus %d", st), gpu.ErrorUnknown
	}
	return gpu.Errorf(s.code, op, "%s: %s", fn, s.name)
}

const (
	pointerModeHost   = 0
	pointerModeDevice = 1
)

// bind creates the handle on first use and points it at stream.
func (b *cublasBackend) bind(op string, stream uintptr, mode uintptr) error {
	a := b.api
	if b.handle == 0 {
		var h uintptr
		if st, _, _ := purego.SyscallN(a.create, uintptr(unsafe.Pointer(&h))); st != 0 {
			return cublasErr(op, "cublasCreate_v2", st)
		}
		b.handle = h
	}
	if b.stream != stream {
		if st, _, _ := purego.SyscallN(a.setStream, b.handle, stream); st != 0 {
			return cublasErr(op, "cublasSetStream_v2", st)
		}
		b.stream = stream
	}
	st, _, _ := purego.SyscallN(a.setPointerMode, b.handle, mode)
	return cublasErr(op, "cublasSetPointerMode_v2", st)
}

func op(t Transpose) uintptr { return uintptr(t) } // CUBLAS_OP_N 0, CUBLAS_OP_T 1

// i32 passes an int as a C int (negative increments included).
func i32(v int) uintptr { return uintptr(int64(int32(v))) }

func (b *cublasBackend) work(c *call) (func() error, rocr.NativeFunc) {
	return nil, func(stream uintptr) error { return b.run(c, stream) }
}

func (b *cublasBackend) run(c *call, stream uintptr) error {
	mode := uintptr(pointerModeHost)
	if c.kind == kDot || c.kind == kNrm2 {
		mode = pointerModeDevice
	}
	if err := b.bind(c.op, stream, mode); err != nil {
		return err
	}
	a, h := b.api, b.handle
	// Scalars by host pointer, into c (a heap object, which does not
	// move): cuBLAS reads them during the call.
	c.scalars32 = [2]float32{float32(c.alpha), float32(c.beta)}
	alpha, beta := uintptr(unsafe.Pointer(&c.alpha)), uintptr(unsafe.Pointer(&c.beta))
	pick := func(s, d uintptr) uintptr {
		if c.f64 {
			return d
		}
		alpha, beta = uintptr(unsafe.Pointer(&c.scalars32[0])), uintptr(unsafe.Pointer(&c.scalars32[1]))
		return s
	}
	addr := func(m interface{ Addr() uintptr }) uintptr { return m.Addr() }
	var fn uintptr
	var name string
	var st uintptr
	switch c.kind {
	case kAxpy:
		fn, name = pick(a.saxpy, a.daxpy), "axpy"
		st, _, _ = purego.SyscallN(fn, h, i32(c.n), alpha, addr(c.x), i32(c.incx), addr(c.y), i32(c.incy))
	case kScal:
		fn, name = pick(a.sscal, a.dscal), "scal"
		st, _, _ = purego.SyscallN(fn, h, i32(c.n), alpha, addr(c.x), i32(c.incx))
	case kCopy:
		fn, name = pick(a.scopy, a.dcopy), "copy"
		st, _, _ = purego.SyscallN(fn, h, i32(c.n), addr(c.x), i32(c.incx), addr(c.y), i32(c.incy))
	case kDot:
		fn, name = pick(a.sdot, a.ddot), "dot"
		st, _, _ = purego.SyscallN(fn, h, i32(c.n), addr(c.x), i32(c.incx), addr(c.y), i32(c.incy), addr(c.result))
	case kNrm2:
		fn, name = pick(a.snrm2, a.dnrm2), "nrm2"
		st, _, _ = purego.SyscallN(fn, h, i32(c.n), addr(c.x), i32(c.incx), addr(c.result))
	case kGemv:
		// Row-major A (m×n) is column-major Aᵀ (n×m): the operation flips.
		fn, name = pick(a.sgemv, a.dgemv), "gemv"
		st, _, _ = purego.SyscallN(fn, h, op(1-c.tA), i32(c.n), i32(c.m), alpha, addr(c.a), i32(c.lda), addr(c.x), i32(c.incx), beta, addr(c.y), i32(c.incy))
	case kGemm:
		if c.batch == 1 {
			fn, name = pick(a.sgemm, a.dgemm), "gemm"
			st, _, _ = purego.SyscallN(fn, h, op(c.tB), op(c.tA), i32(c.n), i32(c.m), i32(c.k), alpha,
				addr(c.b), i32(c.ldb), addr(c.a), i32(c.lda), beta, addr(c.c), i32(c.ldc))
		} else {
			fn, name = pick(a.sgemmBatched, a.dgemmBatched), "gemmStridedBatched"
			st, _, _ = purego.SyscallN(fn, h, op(c.tB), op(c.tA), i32(c.n), i32(c.m), i32(c.k), alpha,
				addr(c.b), i32(c.ldb), uintptr(c.strideB), addr(c.a), i32(c.lda), uintptr(c.strideA), beta,
				addr(c.c), i32(c.ldc), uintptr(c.strideC), i32(c.batch))
		}
	}
	prefix := "cublasS"
	if c.f64 {
		prefix = "cublasD"
	}
	return cublasErr(c.op, prefix+name, st)
}

// destroy queues the handle's release on the stream's processor thread,
// after the handle's work.
func (b *cublasBackend) destroy(s *stream.Stream) error {
	return hostwork.Launch(s, &hostwork.Work{Op: "blas destroy", Native: func(uintptr) error {
		if b.handle == 0 {
			return nil
		}
		st, _, _ := purego.SyscallN(b.api.destroy, b.handle)
		b.handle = 0
		return cublasErr("blas destroy", "cublasDestroy_v2", st)
	}})
}
