package blas

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// cuBLAS and rocBLAS are column-major. A row-major m×n matrix with leading
// dimension ld is, read column-major, its n×m transpose with the same ld,
// so row-major C = op(A)·op(B) is computed as column-major
// Cᵀ = op(B)ᵀ·op(A)ᵀ: the operands swap, m and n swap, and the transposes
// stay as given. The two libraries share prototypes; names, operation
// codes and status codes differ.

// vendorAPI is one vendor library's entry points and conventions.
type vendorAPI struct {
	lib      string             // "cuBLAS", "rocBLAS"
	fns      map[string]uintptr // by routine: "create", "sgemm", ...
	names    map[string]string  // the library's symbol names, for errors
	opN, opT uintptr            // the operation codes
	// call makes one C call (purego.SyscallN; tests put a fake here).
	call func(fn uintptr, args ...uintptr) uintptr
	// err turns a status into an error naming the function.
	err func(op, fn string, st uintptr) error
	// after runs after each call: rocBLAS queues on the HIP null stream,
	// which must be drained before the stream's next work.
	after func() error
}

// vendorStatus is a library status's name and the HIP code it maps onto.
type vendorStatus struct {
	name string
	code gpu.ErrorCode
}

// statusErr makes a library's err function from its status table; a
// status not in it is named by unknown and its number.
func statusErr(table map[uintptr]vendorStatus, unknown string) func(op, fn string, st uintptr) error {
	return func(op, fn string, st uintptr) error {
		if st == 0 {
			return nil
		}
		s, ok := table[st]
		if !ok {
			s = vendorStatus{fmt.Sprintf("%s %d", unknown, st), gpu.ErrUnknown}
		}
		return gpu.Errorf(s.code, op, "%s: %s", fn, s.name)
	}
}

func syscall(fn uintptr, args ...uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn, args...)
	return r
}

// resolve looks up every symbol of names in the library h.
func resolve(lib string, h *vendorlib.Handle, names map[string]string, opN, opT uintptr, errf func(op, fn string, st uintptr) error) (*vendorAPI, error) {
	a := &vendorAPI{lib: lib, fns: map[string]uintptr{}, names: names, opN: opN, opT: opT, call: syscall, err: errf}
	for k, name := range names {
		p := h.Sym(name)
		if p == 0 {
			return nil, gpu.Errorf(gpu.ErrNotSupported, "blas create", "%s (%s) lacks %s", lib, h.Path, name)
		}
		a.fns[k] = p
	}
	return a, nil
}

// vendor is a backend over a vendor library. Its handle is created by the
// first call, on the thread that runs the stream's work (where the
// device's context is current), and used only there, in stream order.
type vendor struct {
	api    *vendorAPI
	handle uintptr
	stream uintptr              // the native stream the handle is set to
	ws     *buffer.Buffer[byte] // the library's workspace, where it takes one
}

const (
	pointerModeHost   = 0
	pointerModeDevice = 1
)

func (b *vendor) c(op, key string, args ...uintptr) error {
	a := b.api
	return a.err(op, a.names[key], a.call(a.fns[key], args...))
}

// bind creates the handle on first use and points it at stream.
func (b *vendor) bind(op string, stream uintptr, mode uintptr) error {
	if b.handle == 0 {
		// The library writes the handle into b, a heap object.
		if err := b.c(op, "create", uintptr(unsafe.Pointer(&b.handle))); err != nil {
			return err
		}
		b.stream = ^uintptr(0)
	}
	if b.stream != stream {
		if err := b.c(op, "setStream", b.handle, stream); err != nil {
			return err
		}
		// Setting the stream resets the workspace to the default pool.
		if b.ws != nil {
			if err := b.c(op, "setWorkspace", b.handle, uintptr(b.ws.Ptr()), uintptr(b.ws.Len())); err != nil {
				return err
			}
		}
		b.stream = stream
	}
	return b.c(op, "setPointerMode", b.handle, mode)
}

func (b *vendor) op(t Transpose) uintptr {
	if t == Trans {
		return b.api.opT
	}
	return b.api.opN
}

// i32 passes an int as a C int (negative increments included).
func i32(v int) uintptr { return uintptr(int64(int32(v))) }

func (b *vendor) work(c *call) (func() error, hostref.NativeFunc) {
	return nil, func(stream uintptr) error {
		if err := b.run(c, stream); err != nil {
			return err
		}
		if b.api.after != nil {
			return b.api.after()
		}
		return nil
	}
}

func (b *vendor) run(c *call, stream uintptr) error {
	mode := uintptr(pointerModeHost)
	if c.kind == kDot || c.kind == kNrm2 {
		mode = pointerModeDevice
	}
	if err := b.bind(c.op, stream, mode); err != nil {
		return err
	}
	h, p := b.handle, "s"
	// Scalars by host pointer, into c (a heap object, which does not
	// move): the library reads them during the call.
	alpha, beta := uintptr(unsafe.Pointer(&c.alpha)), uintptr(unsafe.Pointer(&c.beta))
	if c.f64 {
		p = "d"
	} else {
		c.scalars32 = [2]float32{float32(c.alpha), float32(c.beta)}
		alpha, beta = uintptr(unsafe.Pointer(&c.scalars32[0])), uintptr(unsafe.Pointer(&c.scalars32[1]))
	}
	addr := func(m interface{ Addr() uintptr }) uintptr { return m.Addr() }
	switch c.kind {
	case kAxpy:
		return b.c(c.op, p+"axpy", h, i32(c.n), alpha, addr(c.x), i32(c.incx), addr(c.y), i32(c.incy))
	case kScal:
		return b.c(c.op, p+"scal", h, i32(c.n), alpha, addr(c.x), i32(c.incx))
	case kCopy:
		return b.c(c.op, p+"copy", h, i32(c.n), addr(c.x), i32(c.incx), addr(c.y), i32(c.incy))
	case kDot:
		return b.c(c.op, p+"dot", h, i32(c.n), addr(c.x), i32(c.incx), addr(c.y), i32(c.incy), addr(c.result))
	case kNrm2:
		return b.c(c.op, p+"nrm2", h, i32(c.n), addr(c.x), i32(c.incx), addr(c.result))
	case kGemv:
		// Row-major A (m×n) is column-major Aᵀ (n×m): the operation flips.
		return b.c(c.op, p+"gemv", h, b.op(1-c.tA), i32(c.n), i32(c.m), alpha, addr(c.a), i32(c.lda), addr(c.x), i32(c.incx), beta, addr(c.y), i32(c.incy))
	case kGemm:
		if c.batch == 1 {
			return b.c(c.op, p+"gemm", h, b.op(c.tB), b.op(c.tA), i32(c.n), i32(c.m), i32(c.k), alpha,
				addr(c.b), i32(c.ldb), addr(c.a), i32(c.lda), beta, addr(c.c), i32(c.ldc))
		}
		return b.c(c.op, p+"gemmStridedBatched", h, b.op(c.tB), b.op(c.tA), i32(c.n), i32(c.m), i32(c.k), alpha,
			addr(c.b), i32(c.ldb), uintptr(c.strideB), addr(c.a), i32(c.lda), uintptr(c.strideA), beta,
			addr(c.c), i32(c.ldc), uintptr(c.strideC), i32(c.batch))
	}
	return gpu.Errorf(gpu.ErrInvalidValue, c.op, "unknown routine")
}

// destroy queues the handle's release after the handle's work.
func (b *vendor) destroy(s *stream.Stream) error {
	return hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: "blas destroy", Native: func(uintptr) error {
		if b.handle == 0 {
			return nil
		}
		err := b.c("blas destroy", "destroy", b.handle)
		b.handle = 0
		return err
	}})
}

// release releases the handle on dev's default stream and waits for it,
// for a handle whose stream was destroyed: that waited for the handle's
// work, so nothing uses the handle. The handle is pointed at the default
// stream first, so the library does not touch the destroyed one.
func (b *vendor) release(dev *gpu.Device) error {
	const op = "blas destroy"
	s, err := stream.DefaultStream(dev)
	if err != nil {
		return err
	}
	err = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: op, Native: func(native uintptr) error {
		if b.handle == 0 {
			return nil
		}
		serr := b.c(op, "setStream", b.handle, native)
		err := b.c(op, "destroy", b.handle)
		b.handle = 0
		return errors.Join(serr, err)
	}})
	if err != nil {
		return err
	}
	return s.Synchronize()
}
