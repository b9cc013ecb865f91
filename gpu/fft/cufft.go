package fft

import (
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/vendorlib"
)

var cufftSymbols = []string{
	"cufftPlanMany", "cufftSetStream", "cufftDestroy",
	"cufftExecC2C", "cufftExecR2C", "cufftExecC2R",
	"cufftExecZ2Z", "cufftExecD2Z", "cufftExecZ2D",
}

// openCufft opens cuFFT once; the tests replace it with a fake.
var openCufft = sync.OnceValues(func() (*vendorLib, error) {
	return open(vendorlib.CuFFT, "cuFFT", cufftSymbols)
})

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
// context is current). cuFFT binds a plan to one stream at a time
// (cufftSetStream) and gives it one work area: mu makes each
// cufftSetStream and exec pair one step, and the plan's token orders
// the executions on the GPU, one after another, whatever their streams.
type cufftBackend struct {
	lib       *vendorLib
	exec      uintptr // the kind's cufftExec entry point
	setStream uintptr
	mu        sync.Mutex
	handle    int32      // cufftHandle; -1 once destroyed
	made      int32      // cufftPlanMany's out-parameter
	args      [4]uintptr // a call's arguments, under mu
}

func newCufft(p *Plan) (*cufftBackend, error) {
	lib, err := openCufft()
	if err != nil {
		return nil, err
	}
	return &cufftBackend{lib: lib, exec: lib.fns[cufftExecs[p.kind]], setStream: lib.fns["cufftSetStream"], handle: -1}, nil
}

func (b *cufftBackend) call(op, name string, args ...uintptr) error {
	return cufftErr(op, name, b.lib.call(name, args...))
}

func cufftErr(op, name string, r uintptr) error {
	if r == 0 {
		return nil
	}
	s, ok := cufftStatus[r]
	if !ok {
		return gpu.Errorf(gpu.ErrUnknown, op, "%s: cufftResult %d", name, r)
	}
	return gpu.Errorf(s.code, op, "%s: %s", name, s.name)
}

func (b *cufftBackend) queuesOnly() bool     { return true }
func (b *cufftBackend) host() bool           { return false }
func (b *cufftBackend) run(*execution) error { return nil }

func (b *cufftBackend) native(e *execution, stream uintptr) error {
	op := execOps[e.p.kind]
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.handle < 0 {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan was destroyed")
	}
	// The arguments go through b.args, which lives on the heap already:
	// a variadic call's own array would escape through the call and be
	// allocated at every execution.
	b.args = [4]uintptr{uintptr(b.handle), stream}
	r := b.lib.sys(b.setStream, b.args[:2])
	if err := cufftErr(op, "cufftSetStream", r); err != nil {
		return err
	}
	b.args = [4]uintptr{uintptr(b.handle), e.in.Addr(), e.out.Addr(), uintptr(int64(e.dir))}
	n := 3
	if e.p.kind == C2C || e.p.kind == Z2Z {
		n = 4
	}
	r = b.lib.sys(b.exec, b.args[:n])
	return cufftErr(op, cufftExecs[e.p.kind], r)
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
	var n, inembed, onembed [MaxDims]int32
	for i, d := range p.dims {
		n[i] = int32(d)
	}
	var ie, oe uintptr // null embeds: the basic layout
	istride, ostride, idist, odist := 1, 1, p.in.dist, p.out.dist
	if l := p.advanced; l != nil {
		for i := range p.dims {
			inembed[i], onembed[i] = int32(l.InEmbed[i]), int32(l.OutEmbed[i])
		}
		ie, oe = uintptr(unsafe.Pointer(&inembed[0])), uintptr(unsafe.Pointer(&onembed[0]))
		istride, ostride, idist, odist = l.InStride, l.OutStride, l.InDist, l.OutDist
	}
	err = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: op, Native: func(uintptr) error {
		// The handle is written into b, on the heap: a C library may
		// write to a Go stack, a Go fake may see it move.
		err := b.call(op, "cufftPlanMany", uintptr(unsafe.Pointer(&b.made)), uintptr(len(p.dims)), uintptr(unsafe.Pointer(&n[0])),
			ie, uintptr(istride), uintptr(idist), oe, uintptr(ostride), uintptr(odist), cufftTypes[p.kind], uintptr(p.batch))
		if err == nil {
			b.handle = b.made
		}
		return err
	}})
	if err != nil {
		return err
	}
	return s.Synchronize()
}

// destroy releases the cuFFT plan on the device's default stream, after
// the executions queued before it on any stream (it writes the plan's
// token too), and waits for it.
func (b *cufftBackend) destroy(p *Plan) error {
	s, err := stream.DefaultStream(p.dev)
	if err != nil {
		return err
	}
	w := &hostwork.Work{Op: "fft destroy", Native: func(uintptr) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.handle < 0 {
			return nil
		}
		err := b.call("fft destroy", "cufftDestroy", uintptr(b.handle))
		b.handle = -1
		return err
	}}
	if p.tokenMem != nil {
		w.Writes = []*core.Mem{p.tokenMem}
	}
	if err := hostwork.Launch((*core.Stream)(s), w); err != nil {
		return err
	}
	return s.Synchronize()
}
