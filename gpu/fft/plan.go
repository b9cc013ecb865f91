package fft

import (
	"math"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/hostref"
)

// Kind is a plan's transform and precision (cufftType).
type Kind int

// The kinds: complex-to-complex, real-to-complex and complex-to-real, in
// single (C, R: complex64, float32) and double precision (Z, D:
// complex128, float64).
const (
	C2C Kind = iota
	R2C
	C2R
	Z2Z
	D2Z
	Z2D
)

var kindNames = [...]string{"C2C", "R2C", "C2R", "Z2Z", "D2Z", "Z2D"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + itoa(int(k)) + ")"
}

// realIn is whether the plan's input is real (R2C, D2Z), realOut its
// output (C2R, Z2D).
func (k Kind) realIn() bool  { return k == R2C || k == D2Z }
func (k Kind) realOut() bool { return k == C2R || k == Z2D }

// Direction is a complex-to-complex transform's sign: Forward computes
// X[k] = Σ x[j] e^(-2πi jk/n), Inverse the same with e^(+2πi jk/n). Neither
// scales: Inverse(Forward(x)) is n·x, as with cuFFT and FFTW.
type Direction int

// The directions (CUFFT_FORWARD, CUFFT_INVERSE).
const (
	Forward Direction = -1
	Inverse Direction = 1
)

// Plan is a batch of transforms of one shape on one device (cufftPlanMany
// of the basic layout). A transform of dims (n0[, n1[, n2]]), the last
// varying fastest, reads and writes contiguous elements: a complex
// transform n0·n1·n2 complex values; a real-to-complex one n0·n1·n2 real
// values in and n0·n1·(n2/2+1) complex values out (the non-redundant half
// of the last axis, cuFFT's layout), complex-to-real the reverse. The
// batch's transforms lie back to back.
//
// A plan is reusable on any stream of its device and from several
// goroutines; its executions run one at a time, in the order the streams
// reach them. Destroy releases it.
type Plan struct {
	dev   *gpu.Device
	kind  Kind
	dims  []int
	batch int
	be    backend

	mu        sync.Mutex
	destroyed bool
}

// backend runs a plan's transforms on one kind of device.
type backend interface {
	work(p *Plan, in, out *core.Mem, dir Direction) (func() error, hostref.NativeFunc)
	destroy(dev *gpu.Device) error
}

// MaxDims is the largest rank a plan takes.
const MaxDims = 3

// NewPlan makes a plan of batch transforms of kind over dims on dev. The
// backend follows dev: gonum's dsp/fourier on the cpu agent, cuFFT on
// cuda; on rocm, ErrNotSupported for now (docs/fft.md).
func NewPlan(dev *gpu.Device, kind Kind, dims []int, batch int) (*Plan, error) {
	const op = "fft plan"
	if dev == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidDevice, op, "nil device")
	}
	if kind < C2C || kind > Z2D {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "unknown kind %d", int(kind))
	}
	if len(dims) < 1 || len(dims) > MaxDims {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%d dimensions, want 1 to %d", len(dims), MaxDims)
	}
	total := 1
	for i, n := range dims {
		if n < 1 || n > math.MaxInt32 {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dims[%d] = %d, want 1 to 2^31-1", i, n)
		}
		if total > math.MaxInt64/n {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dims %v overflow", dims)
		}
		total *= n
	}
	if batch < 1 || batch > math.MaxInt32 || total > math.MaxInt64/2/batch {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "batch %d, want 1 to 2^31-1 and a total that fits an int", batch)
	}
	if err := dev.Valid(); err != nil {
		return nil, err
	}
	p := &Plan{dev: dev, kind: kind, dims: append([]int(nil), dims...), batch: batch}
	switch drv := dev.Agent().Info().Driver; drv {
	case "cpu":
		p.be = newCPU(p)
	case "cuda":
		b, err := newCufft(p)
		if err != nil {
			return nil, err
		}
		if err := b.create(p); err != nil {
			return nil, err
		}
		p.be = b
	default:
		return nil, gpu.Errorf(gpu.ErrNotSupported, op, "no FFT backend for driver %q of %s yet (cuFFT on cuda and the cpu agent's gonum only; rocFFT is not bound)", drv, dev)
	}
	return p, nil
}

// Kind is the plan's kind.
func (p *Plan) Kind() Kind { return p.kind }

// Dims is the plan's transform shape (a copy).
func (p *Plan) Dims() []int { return append([]int(nil), p.dims...) }

// Batch is the number of transforms an execution computes.
func (p *Plan) Batch() int { return p.batch }

// inLen and outLen are the elements an execution reads and writes.
func (p *Plan) inLen() int {
	if p.kind.realOut() {
		return p.halfLen() * p.batch
	}
	return p.fullLen() * p.batch
}

func (p *Plan) outLen() int {
	if p.kind.realIn() {
		return p.halfLen() * p.batch
	}
	return p.fullLen() * p.batch
}

func (p *Plan) fullLen() int {
	n := 1
	for _, d := range p.dims {
		n *= d
	}
	return n
}

// halfLen is a real transform's complex side: the last axis n/2+1.
func (p *Plan) halfLen() int {
	n := p.dims[len(p.dims)-1]/2 + 1
	for _, d := range p.dims[:len(p.dims)-1] {
		n *= d
	}
	return n
}

// Destroy releases the plan once its queued executions are done
// (cufftDestroy). Using it after is an error.
func (p *Plan) Destroy() error {
	const op = "fft destroy"
	if p == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil plan")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan already destroyed")
	}
	p.destroyed = true
	return p.be.destroy(p.dev)
}

// exec checks an execution and queues it on s.
func exec(op string, p *Plan, s *stream.Stream, in, out buffer.Object, want Kind, dir Direction) error {
	if p == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil plan")
	}
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	if p.kind != want {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "a %v plan, want %v for these element types", p.kind, want)
	}
	if dir != Forward && dir != Inverse {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "direction %d, want Forward (-1) or Inverse (1)", int(dir))
	}
	if s.Device() != p.dev {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "plan of %s, stream of %s", p.dev, s.Device())
	}
	mi, err := memOf(op, "in", s, in, p.inLen())
	if err != nil {
		return err
	}
	mo, err := memOf(op, "out", s, out, p.outLen())
	if err != nil {
		return err
	}
	ai, ao := mi.Addr(), mo.Addr()
	si, so := uintptr(p.inLen()*mi.ElemSize()), uintptr(p.outLen()*mo.ElemSize())
	if ai < ao+so && ao < ai+si && !(ai == ao && (want == C2C || want == Z2Z)) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "in and out overlap: only a complex-to-complex transform runs in place, on the same address")
	}
	p.mu.Lock()
	destroyed := p.destroyed
	p.mu.Unlock()
	if destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan was destroyed")
	}
	host, native := p.be.work(p, mi, mo, dir)
	w := &hostwork.Work{Op: op, Reads: []*core.Mem{mi}, Writes: []*core.Mem{mo}, Host: host, Native: native, QueuesOnly: native != nil}
	return hostwork.Launch((*core.Stream)(s), w)
}

// memOf is a buffer's memory, checked: not nil, on s's device, at least n
// elements.
func memOf(op, name string, s *stream.Stream, a buffer.Object, n int) (*core.Mem, error) {
	m, _ := core.MemOf(a)
	if a == nil || m == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%s: nil buffer", name)
	}
	if err := m.CheckAccess(op+" "+name, s.Device()); err != nil {
		return nil, err
	}
	if a.Len() < n {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%s: %d elements, the plan needs %d", name, a.Len(), n)
	}
	return m, nil
}

// C2CExec queues a complex-to-complex execution of p on s in direction
// dir (cufftExecC2C, cufftExecZ2Z): complex64 for a C2C plan, complex128
// for Z2Z. in and out may be the same buffer (in place).
func C2CExec[T complex64 | complex128](p *Plan, s *stream.Stream, in, out buffer.Array[T], dir Direction) error {
	want := C2C
	if isDouble[T]() {
		want = Z2Z
	}
	return exec("fft exec "+want.String(), p, s, in, out, want, dir)
}

// R2CExec queues a forward real-to-complex execution of p on s
// (cufftExecR2C, cufftExecD2Z): float32 to complex64 for an R2C plan,
// float64 to complex128 for D2Z.
func R2CExec[R float32 | float64, C complex64 | complex128](p *Plan, s *stream.Stream, in buffer.Array[R], out buffer.Array[C]) error {
	want := R2C
	if isDouble[C]() != isDouble[R]() {
		return gpu.Errorf(gpu.ErrInvalidValue, "fft exec", "real and complex types of different precision")
	}
	if isDouble[R]() {
		want = D2Z
	}
	return exec("fft exec "+want.String(), p, s, in, out, want, Forward)
}

// C2RExec queues an inverse complex-to-real execution of p on s
// (cufftExecC2R, cufftExecZ2D), unscaled. As with cuFFT, a transform of
// more than one dimension may overwrite its input.
func C2RExec[C complex64 | complex128, R float32 | float64](p *Plan, s *stream.Stream, in buffer.Array[C], out buffer.Array[R]) error {
	want := C2R
	if isDouble[C]() != isDouble[R]() {
		return gpu.Errorf(gpu.ErrInvalidValue, "fft exec", "real and complex types of different precision")
	}
	if isDouble[R]() {
		want = Z2D
	}
	return exec("fft exec "+want.String(), p, s, in, out, want, Inverse)
}

func isDouble[T float32 | float64 | complex64 | complex128]() bool {
	var z T
	switch any(z).(type) {
	case float64, complex128:
		return true
	}
	return false
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}
