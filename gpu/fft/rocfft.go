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

// rocFFT runs on HIP streams, and the rocm agent's streams are HSA queues
// that HIP does not know: as with rocBLAS (gpu/blas), an execution runs as
// host work once the stream has drained, on HIP's null stream, and waits
// for it (hipDeviceSynchronize) before the stream goes on. It has not run
// on AMD hardware: the prototypes follow ROCm/rocFFT's public rocfft.h,
// and the arguments are checked against a Go fake (rocfft_fake_test.go).

var rocfftSymbols = []string{
	"rocfft_setup", "rocfft_cleanup",
	"rocfft_plan_create", "rocfft_plan_destroy", "rocfft_execute",
	"rocfft_plan_description_create", "rocfft_plan_description_destroy",
	"rocfft_plan_description_set_data_layout",
	"rocfft_execution_info_create", "rocfft_execution_info_destroy",
	"rocfft_execution_info_set_stream",
}

// openRocfft opens rocFFT (and HIP, for hipDeviceSynchronize) once; the
// tests replace it with a fake.
var openRocfft = sync.OnceValues(func() (*vendorLib, error) {
	hip, err := vendorlib.OpenHIP()
	if err != nil {
		return nil, gpu.Errorf(gpu.ErrNotSupported, "fft plan", "no rocFFT: HIP: %v", err)
	}
	v, err := open(vendorlib.RocFFT, "rocFFT", rocfftSymbols)
	if err != nil {
		return nil, err
	}
	var none [1]uintptr
	v.after = func() error {
		if r := v.sys(hip.DeviceSynchronize, none[:0]); r != 0 {
			return gpu.Errorf(gpu.ErrLaunchFailure, "fft exec", "hipDeviceSynchronize: hipError %d", r)
		}
		return nil
	}
	return v, nil
})

// rocFFT's enums (rocfft.h).
const (
	rocfftComplexForward = 0
	rocfftComplexInverse = 1
	rocfftRealForward    = 2
	rocfftRealInverse    = 3

	rocfftInPlace    = 0
	rocfftNotInPlace = 1

	rocfftComplexInterleaved   = 0
	rocfftReal                 = 2
	rocfftHermitianInterleaved = 3
)

// rocfft_status values the errors name.
var rocfftStatus = map[uintptr]struct {
	name string
	code gpu.ErrorCode
}{
	1: {"rocfft_status_failure", gpu.ErrUnknown}, 2: {"rocfft_status_invalid_arg_value", gpu.ErrInvalidValue},
	3: {"rocfft_status_invalid_dimensions", gpu.ErrInvalidValue}, 4: {"rocfft_status_invalid_array_type", gpu.ErrInvalidValue},
	5: {"rocfft_status_invalid_strides", gpu.ErrInvalidValue}, 6: {"rocfft_status_invalid_distance", gpu.ErrInvalidValue},
	7: {"rocfft_status_invalid_offset", gpu.ErrInvalidValue}, 8: {"rocfft_status_invalid_work_buffer", gpu.ErrInvalidValue},
}

func rocfftErr(op, name string, r uintptr) error {
	if r == 0 {
		return nil
	}
	s, ok := rocfftStatus[r]
	if !ok {
		return gpu.Errorf(gpu.ErrUnknown, op, "%s: rocfft_status %d", name, r)
	}
	return gpu.Errorf(s.code, op, "%s: %s", name, s.name)
}

// rocfftUsers counts the live rocFFT plans: rocfft_setup runs before the
// first, rocfft_cleanup after the last.
var rocfftUsers struct {
	sync.Mutex
	n int
}

func rocfftAcquire(lib *vendorLib) error {
	rocfftUsers.Lock()
	defer rocfftUsers.Unlock()
	if rocfftUsers.n == 0 {
		if err := rocfftErr("fft plan", "rocfft_setup", lib.call("rocfft_setup")); err != nil {
			return err
		}
	}
	rocfftUsers.n++
	return nil
}

func rocfftRelease(lib *vendorLib) error {
	rocfftUsers.Lock()
	defer rocfftUsers.Unlock()
	rocfftUsers.n--
	if rocfftUsers.n == 0 {
		return rocfftErr("fft destroy", "rocfft_cleanup", lib.call("rocfft_cleanup"))
	}
	return nil
}

// rocfftBackend is a plan over rocFFT. A rocFFT plan fixes its direction
// and placement, so a hipgo plan holds up to four: by direction (forward,
// inverse) and placement (out of place, in place). The one its kind
// computes out of place is made by NewPlan; the others on first use.
type rocfftBackend struct {
	lib      *vendorLib
	mu       sync.Mutex
	plans    [2][2]uintptr // rocfft_plan by direction and placement
	info     uintptr       // rocfft_execution_info
	released bool

	// A call's arguments and arrays, under mu: on the heap already, so an
	// execution allocates nothing.
	args                           [11]uintptr
	bufs                           [2]uintptr // in_buffer[0], out_buffer[0]
	lengths, inStrides, outStrides [MaxDims]uintptr
	planOut, descOut, infoOut      uintptr
}

func newRocfft(p *Plan) (*rocfftBackend, error) {
	lib, err := openRocfft()
	if err != nil {
		return nil, err
	}
	if err := rocfftAcquire(lib); err != nil {
		return nil, err
	}
	b := &rocfftBackend{lib: lib}
	// The plan the kind computes out of place, now, so that a bad shape
	// fails NewPlan; on the default stream, where HIP is set up.
	s, err := stream.DefaultStream(p.dev)
	if err == nil {
		dir := Forward
		if p.kind.realOut() {
			dir = Inverse
		}
		err = hostwork.Launch((*core.Stream)(s), &hostwork.Work{Op: "fft plan", Native: func(uintptr) error {
			b.mu.Lock()
			defer b.mu.Unlock()
			_, err := b.plan(p, dir, false, &p.in, &p.out)
			return err
		}})
		if err == nil {
			err = s.Synchronize()
		}
	}
	if err != nil {
		b.release()
		return nil, err
	}
	return b, nil
}

func (b *rocfftBackend) host() bool           { return false }
func (b *rocfftBackend) queuesOnly() bool     { return false }
func (b *rocfftBackend) run(*execution) error { return nil }

func dirIndex(d Direction) int {
	if d == Forward {
		return 0
	}
	return 1
}

// plan returns the rocFFT plan for dir and placement, making it (and the
// execution info) on first use. Under b.mu.
func (b *rocfftBackend) plan(p *Plan, dir Direction, inPlace bool, in, out *side) (uintptr, error) {
	const op = "fft plan"
	pl := 0
	if inPlace {
		pl = 1
	}
	if h := b.plans[dirIndex(dir)][pl]; h != 0 {
		return h, nil
	}
	if b.info == 0 {
		b.infoOut = 0
		if err := rocfftErr(op, "rocfft_execution_info_create", b.lib.call("rocfft_execution_info_create", uintptr(unsafe.Pointer(&b.infoOut)))); err != nil {
			return 0, err
		}
		b.info = b.infoOut
	}
	tt, inType, outType := uintptr(rocfftComplexForward), uintptr(rocfftComplexInterleaved), uintptr(rocfftComplexInterleaved)
	switch {
	case p.kind.realIn():
		tt, inType, outType = rocfftRealForward, rocfftReal, rocfftHermitianInterleaved
	case p.kind.realOut():
		tt, inType, outType = rocfftRealInverse, rocfftHermitianInterleaved, rocfftReal
	case dir == Inverse:
		tt = rocfftComplexInverse
	}
	// rocFFT orders lengths and strides fastest first (column-major).
	rank := len(p.dims)
	for i := range rank {
		b.lengths[i] = uintptr(p.dims[rank-1-i])
		b.inStrides[i] = uintptr(in.stride[rank-1-i])
		b.outStrides[i] = uintptr(out.stride[rank-1-i])
	}
	b.descOut = 0
	if err := rocfftErr(op, "rocfft_plan_description_create", b.lib.call("rocfft_plan_description_create", uintptr(unsafe.Pointer(&b.descOut)))); err != nil {
		return 0, err
	}
	desc := b.descOut
	defer b.lib.call("rocfft_plan_description_destroy", desc)
	err := rocfftErr(op, "rocfft_plan_description_set_data_layout", b.lib.call("rocfft_plan_description_set_data_layout",
		desc, inType, outType, 0, 0,
		uintptr(rank), uintptr(unsafe.Pointer(&b.inStrides[0])), uintptr(in.dist),
		uintptr(rank), uintptr(unsafe.Pointer(&b.outStrides[0])), uintptr(out.dist)))
	if err != nil {
		return 0, err
	}
	placement := uintptr(rocfftNotInPlace)
	if inPlace {
		placement = rocfftInPlace
	}
	precision := uintptr(0)
	if p.kind.double() {
		precision = 1
	}
	b.planOut = 0
	err = rocfftErr(op, "rocfft_plan_create", b.lib.call("rocfft_plan_create", uintptr(unsafe.Pointer(&b.planOut)),
		placement, tt, precision, uintptr(rank), uintptr(unsafe.Pointer(&b.lengths[0])), uintptr(p.batch), desc))
	if err != nil {
		return 0, err
	}
	b.plans[dirIndex(dir)][pl] = b.planOut
	return b.planOut, nil
}

func (b *rocfftBackend) native(e *execution, _ uintptr) error {
	op := execOps[e.p.kind]
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan was destroyed")
	}
	inPlace := e.in == e.out
	h, err := b.plan(e.p, e.dir, inPlace, e.inSide, e.outSide)
	if err != nil {
		return err
	}
	// HIP's null stream: the rocm agent's queues are not HIP streams.
	b.args = [11]uintptr{b.info, 0}
	if err := rocfftErr(op, "rocfft_execution_info_set_stream", b.lib.sys(b.lib.fns["rocfft_execution_info_set_stream"], b.args[:2])); err != nil {
		return err
	}
	b.bufs = [2]uintptr{e.in.Addr(), e.out.Addr()}
	b.args = [11]uintptr{h, uintptr(unsafe.Pointer(&b.bufs[0])), uintptr(unsafe.Pointer(&b.bufs[1])), b.info}
	if err := rocfftErr(op, "rocfft_execute", b.lib.sys(b.lib.fns["rocfft_execute"], b.args[:4])); err != nil {
		return err
	}
	if b.lib.after != nil {
		return b.lib.after()
	}
	return nil
}

// release destroys the rocFFT plans and info. Under b.mu, or alone.
func (b *rocfftBackend) release() error {
	if b.released {
		return nil
	}
	b.released = true
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for d := range b.plans {
		for pl, h := range b.plans[d] {
			if h != 0 {
				keep(rocfftErr("fft destroy", "rocfft_plan_destroy", b.lib.call("rocfft_plan_destroy", h)))
				b.plans[d][pl] = 0
			}
		}
	}
	if b.info != 0 {
		keep(rocfftErr("fft destroy", "rocfft_execution_info_destroy", b.lib.call("rocfft_execution_info_destroy", b.info)))
		b.info = 0
	}
	keep(rocfftRelease(b.lib))
	return first
}

// destroy releases the rocFFT plans on the device's default stream, after
// the executions queued before it on any stream (it writes the plan's
// token too), and waits for it.
func (b *rocfftBackend) destroy(p *Plan) error {
	s, err := stream.DefaultStream(p.dev)
	if err != nil {
		return err
	}
	w := &hostwork.Work{Op: "fft destroy", Native: func(uintptr) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.release()
	}}
	if p.tokenMem != nil {
		w.Writes = []*core.Mem{p.tokenMem}
	}
	if err := hostwork.Launch((*core.Stream)(s), w); err != nil {
		return err
	}
	return s.Synchronize()
}
