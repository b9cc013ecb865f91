package fft

import (
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostmem"
)

// cpuBackend runs a plan on the cpu agent with gonum's dsp/fourier
// (FFTPACK), in complex128 and float64: float32 plans convert on the way in
// and out. A transform of several dimensions is 1-D transforms along each
// axis. Small executions run inline on the stream's thread; a batch runs
// in parallel, a share of its transforms per worker; a large transform of
// a small batch splits its rows and lines among the workers. The parallel
// parts run on the device's pool of goroutines (cpuPool), so an execution
// allocates nothing.
type cpuBackend struct {
	mu      sync.Mutex // one execution at a time uses the workers and job
	workers []*cpuWorker
	helpers []*cpuWorker // where the batch is smaller than the processors

	shape []int // a transform's complex side
	cn    int   // its values
	axes  int   // the complex axes: all of a complex transform, all but the last of a real one

	job  cpuJob // the parallel step running now
	pool *cpuPool
}

// cpuJob is what the parts of a parallel step do.
type cpuJob struct {
	e     *execution
	batch bool // a share of the batch per part; else phase ph of transform i split in parts
	i, ph int
}

// cpuWorker is one goroutine's gonum state and scratch: gonum's FFT
// objects are not safe for concurrent use.
type cpuWorker struct {
	cfft  []*fourier.CmplxFFT // one per axis
	rfft  *fourier.FFT        // the last axis of a real transform
	buf   []complex128        // one transform's complex values
	line  []complex128        // one line along an axis
	rline []float64           // one real row
}

// parallelMin is the smallest transform whose rows and lines are split
// among the workers when the batch has fewer transforms than workers;
// batchMin the fewest values of a batch that run in parallel.
var parallelMin, batchMin = 1 << 14, 1 << 13

func newCPU(p *Plan) (*cpuBackend, error) {
	pool, err := poolOf(p.dev)
	if err != nil {
		return nil, err
	}
	procs := runtime.GOMAXPROCS(0)
	n := max(1, min(p.batch, procs))
	b := &cpuBackend{shape: p.complexShape(), axes: len(p.dims), pool: pool}
	if p.kind.realIn() || p.kind.realOut() {
		b.axes--
	}
	b.cn = 1
	longest := 0
	for _, d := range b.shape {
		b.cn *= d
		longest = max(longest, d)
	}
	worker := func(buf int) *cpuWorker {
		w := &cpuWorker{buf: make([]complex128, buf), line: make([]complex128, longest)}
		for _, d := range b.shape {
			w.cfft = append(w.cfft, fourier.NewCmplxFFT(d))
		}
		if p.kind.realIn() || p.kind.realOut() {
			last := p.dims[len(p.dims)-1]
			w.rfft = fourier.NewFFT(last)
			w.rline = make([]float64, last)
		}
		return w
	}
	for range n {
		b.workers = append(b.workers, worker(b.cn))
	}
	// Fewer transforms than processors: each transform's rows and lines
	// split among helpers (the workers, then more without a buffer).
	if p.batch < procs {
		b.helpers = append(b.helpers, b.workers...)
		for len(b.helpers) < procs {
			b.helpers = append(b.helpers, worker(0))
		}
	}
	return b, nil
}

func (b *cpuBackend) queuesOnly() bool                 { return false }
func (b *cpuBackend) host() bool                       { return true }
func (b *cpuBackend) native(*execution, uintptr) error { return nil }
func (b *cpuBackend) destroy(*Plan) error              { return nil }

// phases is the number of steps of a transform: load, one per complex
// axis, store.
func (b *cpuBackend) phases() int { return b.axes + 2 }

// count is the number of independent pieces of phase ph: rows to load or
// store, lines along an axis.
func (b *cpuBackend) count(ph int) int {
	h := b.shape[len(b.shape)-1]
	if ph == 0 || ph == b.axes+1 {
		return b.cn / h
	}
	n := b.shape[ph-1]
	if n == 1 {
		return 0
	}
	return b.cn / n
}

func (b *cpuBackend) run(e *execution) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := e.p
	switch {
	case len(b.helpers) > 1 && b.cn >= parallelMin:
		b.job = cpuJob{e: e}
		for i := range p.batch {
			b.job.i = i
			for ph := range b.phases() {
				b.job.ph = ph
				b.pool.parallel(b, min(len(b.helpers), b.count(ph)), &e.wg)
			}
		}
	case len(b.workers) > 1 && p.batch*b.cn >= batchMin:
		b.job = cpuJob{e: e, batch: true}
		b.pool.parallel(b, len(b.workers), &e.wg)
	default:
		w := b.workers[0]
		for i := range p.batch {
			for ph := range b.phases() {
				w.phase(b, e, i, ph, w.buf, 0, b.count(ph))
			}
		}
	}
	b.job = cpuJob{}
	return nil
}

// part runs part k of parts of the current job.
func (b *cpuBackend) part(k, parts int) {
	j := &b.job
	if j.batch {
		w := b.workers[k]
		for i := k * j.e.p.batch / parts; i < (k+1)*j.e.p.batch/parts; i++ {
			for ph := range b.phases() {
				w.phase(b, j.e, i, ph, w.buf, 0, b.count(ph))
			}
		}
		return
	}
	n := b.count(j.ph)
	b.helpers[k].phase(b, j.e, j.i, j.ph, b.workers[0].buf, k*n/parts, (k+1)*n/parts)
}

// parter is a step split in parts.
type parter interface{ part(k, parts int) }

type poolTask struct {
	t        parter
	k, parts int
	wg       *sync.WaitGroup
}

// cpuPool is a device's goroutines that run parts: started with the
// device's first plan, they never wait on each other, so any number of
// executions may share them, and they end when the device is released
// (Shutdown, Reset).
type cpuPool struct {
	mu      sync.RWMutex // held for reading while a step uses the pool
	stopped bool
	tasks   chan poolTask
	quit    chan struct{}
}

type cpuPoolKey struct{}

func poolOf(dev *gpu.Device) (*cpuPool, error) {
	v, err := core.DeviceValue(dev, cpuPoolKey{}, func() (any, func() error, error) {
		n := runtime.GOMAXPROCS(0)
		pl := &cpuPool{tasks: make(chan poolTask, 4*n), quit: make(chan struct{})}
		for range n {
			go pl.serve()
		}
		return pl, pl.stop, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*cpuPool), nil
}

func (pl *cpuPool) serve() {
	for {
		select {
		case t := <-pl.tasks:
			t.t.part(t.k, t.parts)
			t.wg.Done()
		case <-pl.quit:
			return
		}
	}
}

// stop ends the goroutines once the steps using them are done.
func (pl *cpuPool) stop() error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if !pl.stopped {
		pl.stopped = true
		close(pl.quit)
	}
	return nil
}

// parallel runs t's parts, part 0 on the calling goroutine, and returns
// when all are done; all on the calling goroutine once the pool stopped.
func (pl *cpuPool) parallel(t parter, parts int, wg *sync.WaitGroup) {
	pl.mu.RLock()
	defer pl.mu.RUnlock()
	if pl.stopped || parts <= 1 {
		for k := range parts {
			t.part(k, parts)
		}
		return
	}
	wg.Add(parts - 1)
	for k := 1; k < parts; k++ {
		pl.tasks <- poolTask{t: t, k: k, parts: parts, wg: wg}
	}
	t.part(0, parts)
	wg.Wait()
}

func slice[T any](m *core.Mem, n int) []T {
	return unsafe.Slice((*T)(hostmem.At(m.Addr())), n)
}

// rowOff is the element where row r (of the leading axes) of transform i
// starts on side s.
func (s *side) rowOff(i, r int) int {
	off := i * s.dist
	for a := s.rank - 2; a >= 0; a-- {
		off += r % s.shape[a] * s.stride[a]
		r /= s.shape[a]
	}
	return off
}

// phase runs pieces [lo, hi) of phase ph of transform i of e in buf (the
// transform's complex values, contiguous) with w's scratch.
func (w *cpuWorker) phase(b *cpuBackend, e *execution, i, ph int, buf []complex128, lo, hi int) {
	p := e.p
	h := b.shape[len(b.shape)-1]
	switch {
	case ph == 0: // load rows
		is := e.inSide
		st := is.stride[is.rank-1]
		for r := lo; r < hi; r++ {
			off, row := is.rowOff(i, r), buf[r*h:(r+1)*h]
			switch p.kind {
			case C2C, C2R:
				gather(row, slice[complex64](e.in, is.span), off, st)
			case Z2Z, Z2D:
				gather(row, slice[complex128](e.in, is.span), off, st)
			case R2C:
				gatherReal(w.rline, slice[float32](e.in, is.span), off, st)
				w.rfft.Coefficients(row, w.rline)
			case D2Z:
				gatherReal(w.rline, slice[float64](e.in, is.span), off, st)
				w.rfft.Coefficients(row, w.rline)
			}
		}
	case ph <= b.axes: // lines along axis ph-1
		a := ph - 1
		n := b.shape[a]
		stride := 1
		for _, d := range b.shape[a+1:] {
			stride *= d
		}
		w.lines(buf, n, stride, a, lo, hi, e.dir)
	default: // store rows
		os := e.outSide
		st := os.stride[os.rank-1]
		for r := lo; r < hi; r++ {
			off, row := os.rowOff(i, r), buf[r*h:(r+1)*h]
			switch p.kind {
			case C2C, R2C:
				scatter(slice[complex64](e.out, os.span), off, st, row)
			case Z2Z, D2Z:
				scatter(slice[complex128](e.out, os.span), off, st, row)
			case C2R, Z2D:
				// The imaginary parts of the first (and, for an even
				// length, the last) coefficient are taken as zero, as
				// cuFFT does.
				w.rfft.Sequence(w.rline, row)
				if p.kind == C2R {
					scatterReal(slice[float32](e.out, os.span), off, st, w.rline)
				} else {
					scatterReal(slice[float64](e.out, os.span), off, st, w.rline)
				}
			}
		}
	}
}

// lines transforms lines [lo, hi) of buf along axis a (length n, element
// stride stride; line l starts at (l/stride)*n*stride + l%stride) with
// w's scratch.
func (w *cpuWorker) lines(buf []complex128, n, stride, a, lo, hi int, dir Direction) {
	f := w.cfft[a]
	if stride == 1 {
		// The last axis: its lines are contiguous, transformed in place.
		for l := lo; l < hi; l++ {
			s := buf[l*n : (l+1)*n]
			if dir == Forward {
				f.Coefficients(s, s)
			} else {
				f.Sequence(s, s)
			}
		}
		return
	}
	line := w.line[:n]
	for l := lo; l < hi; l++ {
		base := l/stride*n*stride + l%stride
		for j := range line {
			line[j] = buf[base+j*stride]
		}
		if dir == Forward {
			f.Coefficients(line, line)
		} else {
			f.Sequence(line, line)
		}
		for j, v := range line {
			buf[base+j*stride] = v
		}
	}
}

// gather copies len(dst) complex values of src from off, st apart.
func gather[T complex64 | complex128](dst []complex128, src []T, off, st int) {
	if st == 1 {
		for j, v := range src[off : off+len(dst)] {
			dst[j] = complex128(v)
		}
		return
	}
	for j := range dst {
		dst[j] = complex128(src[off+j*st])
	}
}

// scatter is gather's reverse.
func scatter[T complex64 | complex128](dst []T, off, st int, src []complex128) {
	if st == 1 {
		d := dst[off : off+len(src)]
		for j, v := range src {
			d[j] = T(v)
		}
		return
	}
	for j, v := range src {
		dst[off+j*st] = T(v)
	}
}

func gatherReal[T float32 | float64](dst []float64, src []T, off, st int) {
	if st == 1 {
		for j, v := range src[off : off+len(dst)] {
			dst[j] = float64(v)
		}
		return
	}
	for j := range dst {
		dst[j] = float64(src[off+j*st])
	}
}

func scatterReal[T float32 | float64](dst []T, off, st int, src []float64) {
	if st == 1 {
		d := dst[off : off+len(src)]
		for j, v := range src {
			d[j] = T(v)
		}
		return
	}
	for j, v := range src {
		dst[off+j*st] = T(v)
	}
}
