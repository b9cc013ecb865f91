package fft

import (
	"fmt"
	"math/cmplx"
	"sync"
	"testing"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
)

// fakeFFT is cuFFT and rocFFT in Go, called the way the bindings call the
// libraries, on the cpu agent's memory (whose device addresses are host
// addresses): it decodes each call's arguments as the C library would and
// computes the transform by the naive DFT through the layout it was given.
// Running the package's tests through it checks the bindings' argument
// order, the layouts (cuFFT's embeds; rocFFT's column-major strides) and
// in-place placement without either library.
type fakeFFT struct {
	mu      sync.Mutex
	names   map[uintptr]string
	calls   map[string]int
	plans   map[uintptr]*fakePlan
	descs   map[uintptr]*fakePlan // rocFFT descriptions: their layout
	next    uintptr
	streams map[uintptr]uintptr // plan or info → stream
	quiet   bool                // executions count and compute nothing
	failOn  string              // an entry point that fails
}

// fakePlan is a plan as the fake decoded it.
type fakePlan struct {
	kind     Kind
	rank     int
	dims     []int // row-major
	batch    int
	basic    bool // cuFFT's null embeds: the layout follows from dims and placement
	in, out  side
	inverse  bool // rocFFT: the direction is the plan's
	inPlace  bool // rocFFT: so is the placement
	rocfft   bool
	executed int
}

func pointer(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

func newFake(lib string, symbols []string) (*vendorLib, *fakeFFT) {
	f := &fakeFFT{names: map[uintptr]string{}, calls: map[string]int{}, plans: map[uintptr]*fakePlan{},
		descs: map[uintptr]*fakePlan{}, next: 0x100, streams: map[uintptr]uintptr{}}
	v := &vendorLib{name: lib, fns: map[string]uintptr{}, sys: f.call}
	for i, n := range symbols {
		v.fns[n] = uintptr(i + 1)
		f.names[uintptr(i+1)] = n
	}
	return v, f
}

// withFake runs dev's plans through a fake of driver's FFT library until t
// ends.
func withFake(t *testing.T, driver string) *fakeFFT {
	t.Helper()
	// The fakes read and write buffers as host memory, which only the cpu
	// agent's are; a GPU runs its real library in the other tests.
	if dev, err := gpu.Default(); err != nil || dev.Properties().Driver != "cpu" {
		t.Skipf("the fake FFT libraries run on the cpu agent's host memory (default device: %v, %v)", dev, err)
	}
	var v *vendorLib
	var f *fakeFFT
	prevDriver, prevCufft, prevRocfft := driverOf, openCufft, openRocfft
	t.Cleanup(func() { driverOf, openCufft, openRocfft = prevDriver, prevCufft, prevRocfft })
	switch driver {
	case "cuda":
		v, f = newFake("cuFFT", cufftSymbols)
		openCufft = func() (*vendorLib, error) { return v, nil }
	case "rocm":
		v, f = newFake("rocFFT", rocfftSymbols)
		openRocfft = func() (*vendorLib, error) { return v, nil }
	}
	driverOf = func(*gpu.Device) string { return driver }
	return f
}

func i32s(addr uintptr, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = int(*(*int32)(unsafe.Add(pointer(addr), 4*i)))
	}
	return out
}

func sizes(addr uintptr, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = int(*(*uintptr)(unsafe.Add(pointer(addr), 8*i)))
	}
	return out
}

func (f *fakeFFT) newHandle() uintptr { f.next++; return f.next }

func (f *fakeFFT) call(fn uintptr, a []uintptr) uintptr {
	f.mu.Lock()
	defer f.mu.Unlock()
	name := f.names[fn]
	f.calls[name]++
	if name == f.failOn {
		return 5 // CUFFT_INTERNAL_ERROR; rocfft_status_invalid_strides
	}
	switch name {
	// cuFFT
	case "cufftPlanMany":
		rank := int(a[1])
		dims := i32s(a[2], rank)
		kind := Kind(-1)
		for k, t := range cufftTypes {
			if t == a[9] {
				kind = Kind(k)
			}
		}
		if kind < 0 || rank < 1 || rank > 3 {
			return 3 // CUFFT_INVALID_TYPE
		}
		pl := &fakePlan{kind: kind, rank: rank, dims: dims, batch: int(a[10]), basic: a[3] == 0}
		if !pl.basic {
			pl.in = fakeEmbedSide(pl.shape(true), i32s(a[3], rank), int(int32(a[4])), int(int32(a[5])), pl.batch)
			pl.out = fakeEmbedSide(pl.shape(false), i32s(a[6], rank), int(int32(a[7])), int(int32(a[8])), pl.batch)
		}
		h := f.newHandle()
		f.plans[h] = pl
		*(*int32)(pointer(a[0])) = int32(h)
	case "cufftSetStream":
		if f.plans[a[0]] == nil {
			return 1
		}
		f.streams[a[0]] = a[1]
	case "cufftDestroy":
		if f.plans[a[0]] == nil {
			return 1 // CUFFT_INVALID_PLAN
		}
		delete(f.plans, a[0])
	case "cufftExecC2C", "cufftExecZ2Z", "cufftExecR2C", "cufftExecD2Z", "cufftExecC2R", "cufftExecZ2D":
		pl := f.plans[a[0]]
		if pl == nil {
			return 1
		}
		if name != cufftExecs[pl.kind] {
			return 3
		}
		dir := Forward
		if pl.kind.realOut() || (len(a) > 3 && int32(a[3]) == 1) {
			dir = Inverse
		}
		f.exec(pl, a[1], a[2], dir)

	// rocFFT
	case "rocfft_setup", "rocfft_cleanup":
	case "rocfft_plan_description_create":
		h := f.newHandle()
		f.descs[h] = &fakePlan{}
		*(*uintptr)(pointer(a[0])) = h
	case "rocfft_plan_description_destroy":
		if f.descs[a[0]] == nil {
			return 2
		}
		delete(f.descs, a[0])
	case "rocfft_plan_description_set_data_layout":
		d := f.descs[a[0]]
		if d == nil || a[3] != 0 || a[4] != 0 || a[5] != a[8] {
			return 2
		}
		rank := int(a[5])
		d.rank = rank
		// Fastest first: turn them row-major.
		is, os := sizes(a[6], rank), sizes(a[9], rank)
		for i := range rank {
			d.in.stride[rank-1-i], d.out.stride[rank-1-i] = is[i], os[i]
		}
		d.in.dist, d.out.dist = int(a[7]), int(a[10])
		d.in.rank, d.out.rank = rank, rank
		d.kind = Kind(int(a[1])*10 + int(a[2])) // array types, checked at plan creation
	case "rocfft_plan_create":
		d := f.descs[a[7]]
		rank := int(a[4])
		if d == nil || d.rank != rank {
			return 3
		}
		l := sizes(a[5], rank)
		pl := &fakePlan{rank: rank, batch: int(a[6]), rocfft: true, inPlace: a[1] == rocfftInPlace}
		for i := range rank {
			pl.dims = append(pl.dims, l[rank-1-i])
		}
		types := int(d.kind)
		double := a[3] == 1
		switch {
		case a[2] <= rocfftComplexInverse && types == 0:
			pl.kind, pl.inverse = C2C, a[2] == rocfftComplexInverse
		case a[2] == rocfftRealForward && types == rocfftReal*10+rocfftHermitianInterleaved:
			pl.kind = R2C
		case a[2] == rocfftRealInverse && types == rocfftHermitianInterleaved*10+rocfftReal:
			pl.kind, pl.inverse = C2R, true
		default:
			return 4 // rocfft_status_invalid_array_type
		}
		if double {
			pl.kind += Z2Z
		}
		pl.in, pl.out = d.in, d.out
		copy(pl.in.shape[:], pl.shape(true))
		copy(pl.out.shape[:], pl.shape(false))
		pl.in.finish(pl.batch)
		pl.out.finish(pl.batch)
		h := f.newHandle()
		f.plans[h] = pl
		*(*uintptr)(pointer(a[0])) = h
	case "rocfft_plan_destroy":
		if f.plans[a[0]] == nil {
			return 2
		}
		delete(f.plans, a[0])
	case "rocfft_execution_info_create":
		h := f.newHandle()
		f.streams[h] = 0
		*(*uintptr)(pointer(a[0])) = h
	case "rocfft_execution_info_destroy":
		delete(f.streams, a[0])
	case "rocfft_execution_info_set_stream":
		if _, ok := f.streams[a[0]]; !ok {
			return 2
		}
		f.streams[a[0]] = a[1]
	case "rocfft_execute":
		pl := f.plans[a[0]]
		if pl == nil {
			return 2
		}
		if _, ok := f.streams[a[3]]; !ok {
			return 2
		}
		in := *(*uintptr)(pointer(a[1]))
		out := in
		if !pl.inPlace {
			out = *(*uintptr)(pointer(a[2]))
		} else if in != *(*uintptr)(pointer(a[2])) && *(*uintptr)(pointer(a[2])) != 0 {
			return 2
		}
		dir := Forward
		if pl.inverse {
			dir = Inverse
		}
		f.exec(pl, in, out, dir)
	default:
		panic(fmt.Sprintf("fake FFT: unknown entry %d (%s)", fn, name))
	}
	return 0
}

// shape is a side's extents: dims, or the half last axis of a real
// transform's complex side.
func (pl *fakePlan) shape(in bool) []int {
	s := append([]int(nil), pl.dims...)
	if (in && pl.kind.realOut()) || (!in && pl.kind.realIn()) {
		s[len(s)-1] = s[len(s)-1]/2 + 1
	}
	return s
}

// fakeEmbedSide is cuFFT's advanced layout, decoded.
func fakeEmbedSide(shape, embed []int, stride, dist, batch int) side {
	s := side{rank: len(shape), dist: dist}
	copy(s.shape[:], shape)
	st := stride
	for a := len(shape) - 1; a >= 0; a-- {
		s.stride[a] = st
		st *= embed[a]
	}
	s.finish(batch)
	return s
}

// exec computes pl from in to out by the naive DFT.
func (f *fakeFFT) exec(pl *fakePlan, in, out uintptr, dir Direction) {
	pl.executed++
	if f.quiet {
		return
	}
	is, os := pl.in, pl.out
	if pl.basic {
		is = basicSide(pl.shape(true), pl.shape(true)[pl.rank-1], pl.batch)
		os = basicSide(pl.shape(false), pl.shape(false)[pl.rank-1], pl.batch)
		// cuFFT pads an in-place real transform's real rows.
		if in == out && pl.kind.realIn() {
			is = basicSide(pl.dims, 2*(pl.dims[pl.rank-1]/2+1), pl.batch)
		}
		if in == out && pl.kind.realOut() {
			os = basicSide(pl.dims, 2*(pl.dims[pl.rank-1]/2+1), pl.batch)
		}
	}
	results := make([][]complex128, pl.batch)
	for b := range pl.batch {
		var x []complex128
		for _, o := range offsets(&is, b) {
			x = append(x, fakeLoad(pl.kind, true, in, o))
		}
		switch {
		case pl.kind.realIn():
			results[b] = half(dft(x, pl.dims, -1), pl.dims)
		case pl.kind.realOut():
			results[b] = dft(hermitian(x, pl.dims), pl.dims, 1)
		default:
			results[b] = dft(x, pl.dims, float64(dir))
		}
	}
	for b := range pl.batch {
		for k, o := range offsets(&os, b) {
			fakeStore(pl.kind, out, o, results[b][k])
		}
	}
}

// hermitian is the full spectrum of a real signal from its half (the
// last axis's first n/2+1 values).
func hermitian(h []complex128, dims []int) []complex128 {
	rank := len(dims)
	hl := dims[rank-1]/2 + 1
	at := func(c []int) complex128 {
		i := 0
		for a := range rank - 1 {
			i = i*dims[a] + c[a]
		}
		return h[i*hl+c[rank-1]]
	}
	full := make([]complex128, prod(dims))
	c, nc := make([]int, rank), make([]int, rank)
	for k := range full {
		r := k
		for a := rank - 1; a >= 0; a-- {
			c[a] = r % dims[a]
			nc[a] = (dims[a] - c[a]) % dims[a]
			r /= dims[a]
		}
		if c[rank-1] < hl {
			full[k] = at(c)
		} else {
			full[k] = cmplx.Conj(at(nc))
		}
	}
	return full
}

func fakeLoad(k Kind, in bool, base uintptr, o int) complex128 {
	real := (in && k.realIn()) || (!in && k.realOut())
	p := pointer(base)
	switch {
	case real && k.double():
		return complex(*(*float64)(unsafe.Add(p, 8*o)), 0)
	case real:
		return complex(float64(*(*float32)(unsafe.Add(p, 4*o))), 0)
	case k.double():
		return *(*complex128)(unsafe.Add(p, 16*o))
	default:
		return complex128(*(*complex64)(unsafe.Add(p, 8*o)))
	}
}

func fakeStore(k Kind, base uintptr, o int, v complex128) {
	p := pointer(base)
	switch {
	case k.realOut() && k.double():
		*(*float64)(unsafe.Add(p, 8*o)) = real(v)
	case k.realOut():
		*(*float32)(unsafe.Add(p, 4*o)) = float32(real(v))
	case k.double():
		*(*complex128)(unsafe.Add(p, 16*o)) = v
	default:
		*(*complex64)(unsafe.Add(p, 8*o)) = complex64(v)
	}
}
