package fft

import (
	"math"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/gpu/stream"
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

// double is whether the kind is double precision.
func (k Kind) double() bool { return k >= Z2Z }

// elemSizes are the bytes of an input and an output element.
func (k Kind) elemSizes() (in, out int) {
	c, r := 8, 4
	if k.double() {
		c, r = 16, 8
	}
	in, out = c, c
	if k.realIn() {
		in = r
	}
	if k.realOut() {
		out = r
	}
	return in, out
}

// Direction is a complex-to-complex transform's sign: Forward computes
// X[k] = Σ x[j] e^(-2πi jk/n), Inverse the same with e^(+2πi jk/n). Neither
// scales: Inverse(Forward(x)) is n·x, as with cuFFT and FFTW.
type Direction int

// The directions (CUFFT_FORWARD, CUFFT_INVERSE).
const (
	Forward Direction = -1
	Inverse Direction = 1
)

// Plan is a batch of transforms of one shape and layout on one device
// (cufftPlanMany). A transform of dims (n0[, n1[, n2]]), the last varying
// fastest, reads and writes its elements through the plan's Layout: by
// default (the basic layout) a complex transform n0·n1·n2 contiguous
// complex values, a real-to-complex one n0·n1·n2 real values in and
// n0·n1·(n2/2+1) complex values out (the non-redundant half of the last
// axis, cuFFT's layout), complex-to-real the reverse, the batch's
// transforms back to back.
//
// A plan is usable on any stream of its device and from several
// goroutines. Its executions run one at a time, in the order their
// streams reach them: each execution is ordered after the previous one on
// any stream, as if they all wrote one buffer (the plan's work area).
// Destroy releases it.
type Plan struct {
	dev      *gpu.Device
	gen      uint64
	kind     Kind
	dims     []int
	batch    int
	advanced *Layout // nil: the basic layout
	in, out  side
	pad      side // a real transform's padded real side, for in place (basic layout)
	be       backend

	// token is a byte of device memory that every execution declares it
	// writes: the streams' dependency tracking then orders the plan's
	// executions one after another, whatever stream each is on.
	token    *buffer.Buffer[byte]
	tokenMem *core.Mem

	mu        sync.RWMutex // held for reading while an execution is checked and queued
	destroyed bool
	cached    bool // owned by its device's plan cache

	freeMu sync.Mutex
	free   []*execution // executions done, for reuse
}

// backend runs a plan's transforms on one kind of device. run is the
// execution's host function, native its native call (one of them is set
// in the work, as the backend says with host).
type backend interface {
	host() bool
	queuesOnly() bool // a native call only queues work (cuFFT), or waits for it
	run(e *execution) error
	native(e *execution, stream uintptr) error
	destroy(p *Plan) error
}

// driverOf names the driver whose FFT library a plan of dev uses; the
// tests run the cuFFT and rocFFT bindings on the cpu agent against fakes.
var driverOf = func(dev *gpu.Device) string { return dev.Agent().Info().Driver }

// MaxDims is the largest rank a plan takes.
const MaxDims = 3

// NewPlan makes a plan of batch transforms of kind over dims, in the
// basic layout, on dev (cufftPlanMany with null embeds). The backend
// follows dev: gonum's dsp/fourier on the cpu agent, cuFFT on cuda; on
// rocm, ErrNotSupported for now (docs/fft.md).
func NewPlan(dev *gpu.Device, kind Kind, dims []int, batch int) (*Plan, error) {
	return NewPlanMany(dev, kind, dims, batch, nil)
}

// NewPlanMany is NewPlan with a data layout (cufftPlanMany): nil is the
// basic layout. A layout is checked here (embeds at least the extents,
// strides and distances positive, nothing that overflows); the buffers
// are checked against it at each execution (InLen, OutLen).
func NewPlanMany(dev *gpu.Device, kind Kind, dims []int, batch int, layout *Layout) (*Plan, error) {
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
		if total > math.MaxInt64/4/n {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dims %v overflow", dims)
		}
		total *= n
	}
	if batch < 1 || batch > math.MaxInt32 || total > math.MaxInt64/4/batch {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "batch %d, want 1 to 2^31-1 and a total that fits an int", batch)
	}
	if err := dev.Valid(); err != nil {
		return nil, err
	}
	p := &Plan{dev: dev, gen: core.Gen(dev), kind: kind, dims: append([]int(nil), dims...), batch: batch}
	if err := p.layout(op, layout); err != nil {
		return nil, err
	}
	switch drv := driverOf(dev); drv {
	case "cpu":
		b, err := newCPU(p)
		if err != nil {
			return nil, err
		}
		p.be = b
	case "cuda":
		b, err := newCufft(p)
		if err != nil {
			return nil, err
		}
		if err := b.create(p); err != nil {
			return nil, err
		}
		p.be = b
	case "rocm":
		b, err := newRocfft(p)
		if err != nil {
			return nil, err
		}
		p.be = b
	default:
		return nil, gpu.Errorf(gpu.ErrNotSupported, op, "no FFT backend for driver %q of %s", drv, dev)
	}
	tok, err := buffer.New[byte](dev, 1)
	if err != nil {
		_ = p.be.destroy(p)
		return nil, err
	}
	p.token = tok
	p.tokenMem, _ = core.MemOf(tok)
	return p, nil
}

// Kind is the plan's kind.
func (p *Plan) Kind() Kind { return p.kind }

// Dims is the plan's transform shape (a copy).
func (p *Plan) Dims() []int { return append([]int(nil), p.dims...) }

// Batch is the number of transforms an execution computes.
func (p *Plan) Batch() int { return p.batch }

// Device is the plan's device.
func (p *Plan) Device() *gpu.Device { return p.dev }

// complexShape is the shape of a transform's complex side.
func (p *Plan) complexShape() []int {
	s := append([]int(nil), p.dims...)
	if p.kind.realIn() || p.kind.realOut() {
		s[len(s)-1] = s[len(s)-1]/2 + 1
	}
	return s
}

// Destroy releases the plan once its queued executions are done
// (cufftDestroy). Using it after is an error, and so is destroying a plan
// of the plan cache (Cached): the cache releases its plans.
func (p *Plan) Destroy() error {
	const op = "fft destroy"
	if p == nil || p.be == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil or zero plan")
	}
	p.mu.RLock()
	cached := p.cached
	p.mu.RUnlock()
	if cached {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "the plan belongs to the plan cache (ClearCache releases it)")
	}
	return p.release(op)
}

// release destroys the plan, cached or not.
func (p *Plan) release(op string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan already destroyed")
	}
	p.destroyed = true
	err := p.be.destroy(p)
	// Free waits for the executions still queued: they all wrote the
	// token.
	if ferr := p.token.Free(); err == nil && core.Valid(p.dev, p.gen) == nil {
		err = ferr
	}
	return err
}

// exec ops, by kind: the errors' names, made once so that a call builds
// no string.
var execOps, inOps, outOps, dataOps [Z2D + 1]string

func init() {
	for k := C2C; k <= Z2D; k++ {
		execOps[k] = "fft exec " + k.String()
		inOps[k] = execOps[k] + " in"
		outOps[k] = execOps[k] + " out"
		dataOps[k] = execOps[k] + " in place"
	}
}

// exec checks an execution and queues it on s. in and out are the same
// object for the in-place entry points (inPlace), whose one buffer is of
// the complex side's type.
func exec(p *Plan, s *stream.Stream, in, out buffer.Object, want Kind, dir Direction, inPlace bool) error {
	op := execOps[want]
	if p == nil || p.be == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil or zero plan")
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
	ies, oes := p.kind.elemSizes()
	inSide, outSide := &p.in, &p.out
	var mi, mo *core.Mem
	var err error
	if inPlace {
		// One buffer of the complex side's type; the real side (if any)
		// addresses the same bytes, padded in the basic layout.
		if p.advanced == nil && (p.kind.realIn() || p.kind.realOut()) {
			if p.kind.realIn() {
				inSide = &p.pad
			} else {
				outSide = &p.pad
			}
		}
		need := max(inSide.span*ies, outSide.span*oes)
		if mi, err = memOf(dataOps[want], s, in, 1); err != nil {
			return err
		}
		if in.Bytes() < need {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "in place: %d bytes, the plan's layout reaches %d", in.Bytes(), need)
		}
		mo = mi
		if err := p.inPlaceOK(op, inSide, outSide, ies, oes); err != nil {
			return err
		}
	} else {
		if mi, err = memOf(inOps[want], s, in, inSide.span); err != nil {
			return err
		}
		if mo, err = memOf(outOps[want], s, out, outSide.span); err != nil {
			return err
		}
		ai, ao := mi.Addr(), mo.Addr()
		si, so := uintptr(inSide.span*ies), uintptr(outSide.span*oes)
		if ai < ao+so && ao < ai+si {
			if ai != ao {
				return gpu.Errorf(gpu.ErrInvalidValue, op, "in and out overlap: an in-place transform uses one buffer from its start")
			}
			if p.kind.realIn() || p.kind.realOut() {
				return gpu.Errorf(gpu.ErrInvalidValue, op, "in and out overlap: a real transform runs in place through R2CInPlace or C2RInPlace")
			}
			if err := p.inPlaceOK(op, inSide, outSide, ies, oes); err != nil {
				return err
			}
		}
	}
	capturing := (*core.Stream)(s).IsCapturing()
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan was destroyed")
	}
	if err := core.Valid(p.dev, p.gen); err != nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "plan: %v", err)
	}
	e := p.execution(capturing)
	e.in, e.out, e.inSide, e.outSide, e.dir = mi, mo, inSide, outSide, dir
	e.reads[0], e.writes[0], e.writes[1] = mi, mo, p.tokenMem
	e.work.Op = op
	if err := hostwork.Launch((*core.Stream)(s), &e.work); err != nil {
		p.done(e)
		return err
	}
	return nil
}

// inPlaceOK is the rule an in-place execution follows: each transform
// reads and writes bytes no other transform of the batch touches, so the
// order the transforms run in does not matter. That holds where the input
// and output address the same elements (a complex transform with one
// layout for both), for one transform, and where the transforms lie in
// blocks of one size that each holds its transform's input and output.
func (p *Plan) inPlaceOK(op string, in, out *side, ies, oes int) error {
	if p.batch == 1 || (ies == oes && *in == *out) {
		return nil
	}
	id, od := in.dist*ies, out.dist*oes
	ispan, ospan := (in.span-(p.batch-1)*in.dist)*ies, (out.span-(p.batch-1)*out.dist)*oes
	if id == od && ispan <= id && ospan <= od {
		return nil
	}
	return gpu.Errorf(gpu.ErrInvalidValue, op, "in place: the transforms' input and output blocks differ (in dist %d bytes, out dist %d bytes): a transform could overwrite another's input", id, od)
}

// memOf is a buffer's memory, checked: not nil, usable on s's device, at
// least n elements.
func memOf(op string, s *stream.Stream, a buffer.Object, n int) (*core.Mem, error) {
	m, _ := core.MemOf(a)
	if a == nil || m == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := m.CheckAccess(op, s.Device()); err != nil {
		return nil, err
	}
	if a.Len() < n {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%d elements, the plan's layout reaches %d", a.Len(), n)
	}
	return m, nil
}

// C2CExec queues a complex-to-complex execution of p on s in direction
// dir (cufftExecC2C, cufftExecZ2Z): complex64 for a C2C plan, complex128
// for Z2Z. in and out may be the same buffer (in place, see InPlace in
// docs/fft.md); other overlaps are refused.
func C2CExec[T complex64 | complex128](p *Plan, s *stream.Stream, in, out buffer.Array[T], dir Direction) error {
	want := C2C
	if isDouble[T]() {
		want = Z2Z
	}
	return exec(p, s, in, out, want, dir, false)
}

// R2CExec queues a forward real-to-complex execution of p on s
// (cufftExecR2C, cufftExecD2Z): float32 to complex64 for an R2C plan,
// float64 to complex128 for D2Z.
func R2CExec[R float32 | float64, C complex64 | complex128](p *Plan, s *stream.Stream, in buffer.Array[R], out buffer.Array[C]) error {
	if isDouble[C]() != isDouble[R]() {
		return gpu.Errorf(gpu.ErrInvalidValue, "fft exec", "real and complex types of different precision")
	}
	want := R2C
	if isDouble[R]() {
		want = D2Z
	}
	return exec(p, s, in, out, want, Forward, false)
}

// C2RExec queues an inverse complex-to-real execution of p on s
// (cufftExecC2R, cufftExecZ2D), unscaled. As with cuFFT, a transform of
// more than one dimension may overwrite its input.
func C2RExec[C complex64 | complex128, R float32 | float64](p *Plan, s *stream.Stream, in buffer.Array[C], out buffer.Array[R]) error {
	if isDouble[C]() != isDouble[R]() {
		return gpu.Errorf(gpu.ErrInvalidValue, "fft exec", "real and complex types of different precision")
	}
	want := C2R
	if isDouble[R]() {
		want = Z2D
	}
	return exec(p, s, in, out, want, Inverse, false)
}

// R2CInPlace queues an in-place real-to-complex execution of p on s
// (cufftExecR2C with idata == odata): data holds the real input and
// receives the complex output. In the basic layout each real row is
// padded to the bytes of a complex row, as cuFFT lays it out: the real
// values of row r start at float r·2·(n/2+1) of data, and data needs
// OutLen complex values. With an advanced layout the input side's strides
// count real elements from data's start.
func R2CInPlace[C complex64 | complex128](p *Plan, s *stream.Stream, data buffer.Array[C]) error {
	want := R2C
	if isDouble[C]() {
		want = D2Z
	}
	return exec(p, s, data, data, want, Forward, true)
}

// C2RInPlace queues an in-place complex-to-real execution of p on s
// (cufftExecC2R with idata == odata), the reverse of R2CInPlace: data
// holds the complex input and receives the real output, padded rows in
// the basic layout.
func C2RInPlace[C complex64 | complex128](p *Plan, s *stream.Stream, data buffer.Array[C]) error {
	want := C2R
	if isDouble[C]() {
		want = Z2D
	}
	return exec(p, s, data, data, want, Inverse, true)
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
