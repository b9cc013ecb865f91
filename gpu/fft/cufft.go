package fft

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

// cuFFT's entry points, opened once through the vendor layer.
var cufftLib struct {
	once sync.Once
	fns  map[string]uintptr
	err  error
}

var cufftSymbols = []string{
	"cufftPlanMany", "cufftSetStream", "cufftDestroy",
	"cufftExecC2C", "cufftExecR2C", "cufftExecC2R",
	"cufftExecZ2Z", "cufftExecD2Z", "cufftExecZ2D",
}

func loadCufft() (map[string]uintptr, error) {
	cufftLib.once.Do(func() {
		h, err := vendorlib.CuFFT.Open()
		if err != nil {
			cufftLib.err = gpu.Errorf(gpu.ErrNotSupported, "fft plan", "no cuFFT: %v", err)
			return
		}
		fns := map[string]uintptr{}
		for _, name := range cufftSymbols {
			p := h.Sym(name)
			if p == 0 {
				cufftLib.err = gpu.Errorf(gpu.ErrNotSupported, "fft plan", "cuFFT (%s) lacks %s", h.Path, name)
				return
			}
			fns[name] = p
		}
		cufftLib.fns = fns
	})
	return cufftLib.fns, cufftLib.err
}

// cufftType values, by Kind.
var cufftTypes = [...]uintptr{C2C: 0x29, R2C: 0x2a, C2R: 0x2c, Z2Z: 0x69, D2Z: 0x6a, Z2D: 0x6c}

var cufftExecs = [...]string{C2C: "cufftExecC2C", R2C: "cufftExecR2C", C2R: "cufftExecC2R", Z2Z: "cufftExecZ2Z", D2Z: "cufftExecD2Z", Z2D: "cufftExecZ2D"}

// cufftResult values the errors name.
var cufftStatus = map[uintptr]struct {
	name string
	code gpu.ErrorCode
}{
	1: {"CUFFT_INVALID_PLAN", gpu.ErrInvalidHandle}, 2: {"CUFFT_ALLOC_FAILED", gpu.ErrOutOfMemory},
	3: {"CUFFT_INVALID_TYPE", gpu.ErrInvalidValue}, 4: {"CUFFT_INVALID_VALUE", gpu.ErrInvalidValue},
	5: {"CUFFT_INTERNAL_ERROR", gpu.ErrUnknown}, 6: {"CUFFT_EXEC_FAILED", gpu.ErrLaunchFailure},
	7: {"CUFFT_SETUP_FAILED", gpu.ErrNotInitialized}, 8: {"CUFFT_INVALID_SIZE", gpu.ErrInvalidValue},
	16: {"CUFFT_NOT_SUPPORTED", gpu.ErrNotSupported},
}

// cufftBackend is a plan over cuFFT: the cuFFT plan, made by NewPlan,
// used on the threads that run the streams' work (where the device's
// context is current), in stream order.
type cufftBackend struct {
	fns    map[string]uintptr
	handle int32    // cufftHandle
	n      [3]int32 // the dims, for cufftPlanMany
}

func newCufft(p *Plan) (*cufftBackend, error) {
	fns, err := loadCufft()
	if err != nil {
		return nil, err
	}
	b := &cufftBackend{fns: fns, handle: -1}
	for i, d := range p.dims {
		b.n[i] = int32(d)
	}
	return b, nil
}

func (b *cufftBackend) call(op, name string, args ...uintptr) error {
	r, _, _ := purego.SyscallN(b.fns[name], args...)
	if r == 0 {
		return nil
	}
	s, ok := cufftStatus[r]
	if !ok {
		return gpu.Errorf(gpu.ErrUnknown, op, "%s: cufftResult %d", name, r)
	}
	return gpu.Errorf(s.code, op, "%s: %s", name, s.name)
}

func (b *cufftBackend) work(p *Plan, in, out *core.Mem, dir Direction) (func() error, hostref.NativeFunc) {
	const op = "fft exec"
	return nil, func(native uintptr) error {
		if err := b.call(op, "cufftSetStream", uintptr(b.handle), native); err != nil {
			return err
		}
		args := []uintptr{uintptr(b.handle), in.Addr(), out.Addr()}
		if p.kind == C2C || p.kind == Z2Z {
			args = append(args, uintptr(int64(dir)))
		}
		return b.call(op, cufftExecs[p.kind], args...)
	}
}

// create makes the cuFFT plan on the device's default stream, where its
// context is current, and waits for it: NewPlan returns a plan that is
// ready, so an execution on a capturing stream allocates nothing.
func (b *cufftBackend) create(p *Plan) error {
	const op = "fft plan"
	s, err := stream.DefaultStream(p.dev)
	if err != nil {
		return err
	}
	err = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: op, Native: func(uintptr) error {
		// The basic layout: null embeds, so strides and distances
		// follow from n.
		idist, odist := p.fullLen(), p.fullLen()
		if p.kind.realIn() {
			odist = p.halfLen()
		} else if p.kind.realOut() {
			idist = p.halfLen()
		}
		var h int32
		err := b.call(op, "cufftPlanMany", uintptr(unsafe.Pointer(&h)), uintptr(len(p.dims)), uintptr(unsafe.Pointer(&b.n[0])),
			0, 1, uintptr(idist), 0, 1, uintptr(odist), cufftTypes[p.kind], uintptr(p.batch))
		if err == nil {
			b.handle = h
		}
		return err
	}})
	if err != nil {
		return err
	}
	return s.Synchronize()
}

// destroy releases the cuFFT plan on the device's default stream, after
// the work queued before it there, and waits for it.
func (b *cufftBackend) destroy(dev *gpu.Device) error {
	s, err := stream.DefaultStream(dev)
	if err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	err = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: "fft destroy", Native: func(uintptr) error {
		if b.handle < 0 {
			return nil
		}
		err := b.call("fft destroy", "cufftDestroy", uintptr(b.handle))
		b.handle = -1
		return err
	}})
	if err != nil {
		return err
	}
	return s.Synchronize()
}
