package fft

import (
	"runtime"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
)

// cpuBackend runs a plan on the cpu agent with gonum's dsp/fourier
// (FFTPACK), in complex128 and float64: float32 plans convert on the way in
// and out. A transform of several dimensions is 1-D transforms along each
// axis; the batch's transforms run in parallel, one worker each.
type cpuBackend struct {
	mu      sync.Mutex // one execution at a time uses the workers
	workers []*cpuWorker
	helpers []*cpuWorker // where the batch is smaller than the processors
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

// parallelMin is the smallest transform whose lines are split among the
// workers when the batch has fewer transforms than workers.
var parallelMin = 1 << 14

func newCPU(p *Plan) *cpuBackend {
	procs := runtime.GOMAXPROCS(0)
	n := max(1, min(p.batch, procs))
	b := &cpuBackend{}
	shape := p.complexShape()
	size := 1
	longest := 0
	for _, d := range shape {
		size *= d
		longest = max(longest, d)
	}
	worker := func(buf int) *cpuWorker {
		w := &cpuWorker{buf: make([]complex128, buf), line: make([]complex128, longest)}
		for _, d := range shape {
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
		b.workers = append(b.workers, worker(size))
	}
	// Fewer transforms than processors: the first worker's transforms
	// split their lines among helpers (the workers, then more without a
	// buffer of their own).
	if p.batch < procs {
		b.helpers = append(b.helpers, b.workers...)
		for len(b.helpers) < procs {
			b.helpers = append(b.helpers, worker(0))
		}
	}
	return b
}

// complexShape is the shape of a transform's complex side.
func (p *Plan) complexShape() []int {
	s := append([]int(nil), p.dims...)
	if p.kind.realIn() || p.kind.realOut() {
		s[len(s)-1] = s[len(s)-1]/2 + 1
	}
	return s
}

func (b *cpuBackend) destroy(*gpu.Device) error { return nil }

// runner calls f over [0, n) in parts, each with a worker's scratch.
type runner func(n int, f func(h *cpuWorker, lo, hi int))

func (w *cpuWorker) alone(n int, f func(h *cpuWorker, lo, hi int)) { f(w, 0, n) }

// split runs f over [0, n) in one part per helper, in parallel.
func (b *cpuBackend) split(n int, f func(h *cpuWorker, lo, hi int)) {
	parts := min(len(b.helpers), n)
	if parts <= 1 {
		f(b.helpers[0], 0, n)
		return
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(b.helpers[k], k*n/parts, (k+1)*n/parts)
		}()
	}
	wg.Wait()
}

func (b *cpuBackend) work(p *Plan, in, out *core.Mem, dir Direction) (func() error, hostref.NativeFunc) {
	return func() error {
		b.mu.Lock()
		defer b.mu.Unlock()
		if len(b.helpers) > 1 && p.fullLen() >= parallelMin {
			for i := range p.batch {
				b.workers[0].transform(p, in, out, i, dir, b.split)
			}
			return nil
		}
		var wg sync.WaitGroup
		next := make(chan int, p.batch)
		for i := range p.batch {
			next <- i
		}
		close(next)
		for _, w := range b.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					w.transform(p, in, out, i, dir, w.alone)
				}
			}()
		}
		wg.Wait()
		return nil
	}, nil
}

func slice[T any](m *core.Mem, n int) []T {
	return unsafe.Slice((*T)(hostmem.At(m.Addr())), n)
}

// transform runs transform i of the batch in w.buf, its row and line
// passes through run.
func (w *cpuWorker) transform(p *Plan, in, out *core.Mem, i int, dir Direction, run runner) {
	shape := p.complexShape()
	buf := w.buf
	cn, rn := len(buf), p.fullLen()
	last := p.dims[len(p.dims)-1]
	h := shape[len(shape)-1]
	rows := cn / h
	switch p.kind {
	case C2C, C2R:
		src := slice[complex64](in, p.inLen())[i*cn : (i+1)*cn]
		run(cn, func(_ *cpuWorker, lo, hi int) { load(buf[lo:hi], src[lo:hi]) })
	case Z2Z, Z2D:
		src := slice[complex128](in, p.inLen())[i*cn : (i+1)*cn]
		run(cn, func(_ *cpuWorker, lo, hi int) { copy(buf[lo:hi], src[lo:hi]) })
	case R2C, D2Z:
		run(rows, func(hw *cpuWorker, lo, hi int) {
			for r := lo; r < hi; r++ {
				if p.kind == R2C {
					src := slice[float32](in, p.inLen())[i*rn+r*last : i*rn+(r+1)*last]
					for j, v := range src {
						hw.rline[j] = float64(v)
					}
				} else {
					copy(hw.rline, slice[float64](in, p.inLen())[i*rn+r*last:i*rn+(r+1)*last])
				}
				hw.rfft.Coefficients(buf[r*h:(r+1)*h], hw.rline)
			}
		})
	}
	// The complex axes: every axis of a complex transform, all but the
	// last of a real one.
	axes := len(shape)
	if p.kind.realIn() || p.kind.realOut() {
		axes--
	}
	for a := 0; a < axes; a++ {
		n := shape[a]
		if n == 1 {
			continue
		}
		stride := 1
		for _, d := range shape[a+1:] {
			stride *= d
		}
		run(cn/n, func(hw *cpuWorker, lo, hi int) { hw.lines(buf, n, stride, a, lo, hi, dir) })
	}
	switch p.kind {
	case C2C, R2C:
		dst := slice[complex64](out, p.outLen())[i*cn : (i+1)*cn]
		run(cn, func(_ *cpuWorker, lo, hi int) { store(dst[lo:hi], buf[lo:hi]) })
	case Z2Z, D2Z:
		dst := slice[complex128](out, p.outLen())[i*cn : (i+1)*cn]
		run(cn, func(_ *cpuWorker, lo, hi int) { copy(dst[lo:hi], buf[lo:hi]) })
	case C2R, Z2D:
		run(rows, func(hw *cpuWorker, lo, hi int) {
			for r := lo; r < hi; r++ {
				// The imaginary parts of the first (and, for an even
				// length, the last) coefficient are taken as zero, as
				// cuFFT does.
				hw.rfft.Sequence(hw.rline, buf[r*h:(r+1)*h])
				if p.kind == C2R {
					dst := slice[float32](out, p.outLen())[i*rn+r*last : i*rn+(r+1)*last]
					for j, v := range hw.rline {
						dst[j] = float32(v)
					}
				} else {
					copy(slice[float64](out, p.outLen())[i*rn+r*last:i*rn+(r+1)*last], hw.rline)
				}
			}
		})
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

func load(dst []complex128, src []complex64) {
	for i, v := range src {
		dst[i] = complex128(v)
	}
}

func store(dst []complex64, src []complex128) {
	for i, v := range src {
		dst[i] = complex64(v)
	}
}
