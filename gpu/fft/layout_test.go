package fft

import (
	"errors"
	"math/cmplx"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// offsets lists where transform b's elements lie on side s, in row-major
// order of its shape.
func offsets(s *side, b int) []int {
	n := 1
	for a := range s.rank {
		n *= s.shape[a]
	}
	out := make([]int, n)
	for k := range out {
		off, r := b*s.dist, k
		for a := s.rank - 1; a >= 0; a-- {
			off += r % s.shape[a] * s.stride[a]
			r /= s.shape[a]
		}
		out[k] = off
	}
	return out
}

// sentinel fills a buffer's elements that a layout does not address, to
// see that an execution leaves them.
const sentinel = 1234.5

var layouts = []struct {
	name  string
	dims  []int
	batch int
	l     *Layout
}{
	{"1-D interleaved", []int{8}, 4, &Layout{InEmbed: []int{8}, InStride: 4, InDist: 1, OutEmbed: []int{8}, OutStride: 4, OutDist: 1}},
	{"1-D strided, gaps", []int{6}, 3, &Layout{InEmbed: []int{0}, InStride: 2, InDist: 13, OutEmbed: []int{0}, OutStride: 3, OutDist: 20}},
	{"2-D embedded", []int{4, 6}, 3, &Layout{InEmbed: []int{4, 8}, InStride: 2, InDist: 70, OutEmbed: []int{9, 7}, OutStride: 1, OutDist: 29}},
	{"3-D embedded", []int{3, 4, 5}, 2, &Layout{InEmbed: []int{3, 5, 6}, InStride: 1, InDist: 95, OutEmbed: []int{3, 4, 8}, OutStride: 2, OutDist: 200}},
	{"2-D, in and out differ", []int{5, 3}, 2, &Layout{InEmbed: []int{5, 3}, InStride: 3, InDist: 1, OutEmbed: []int{5, 4}, OutStride: 1, OutDist: 20}},
}

// Complex transforms through advanced layouts match the naive DFT of the
// elements the layout addresses, and leave every other element.
func TestLayoutC2C(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range layouts {
		p := newPlanMany(t, dev, Z2Z, c.dims, c.batch, c.l)
		n := prod(c.dims)
		x := make([]complex128, p.InLen())
		for i := range x {
			x[i] = sentinel
		}
		for b := range c.batch {
			for _, o := range offsets(&p.in, b) {
				x[o] = complex(r.Float64()*2-1, r.Float64()*2-1)
			}
		}
		init := make([]complex128, p.OutLen())
		for i := range init {
			init[i] = sentinel
		}
		for _, dir := range []Direction{Forward, Inverse} {
			out := upload(t, dev, init)
			require.NoError(t, C2CExec(p, s, upload(t, dev, x), out, dir), c.name)
			got := download(t, s, out)
			touched := map[int]bool{}
			for b := range c.batch {
				var xb []complex128
				for _, o := range offsets(&p.in, b) {
					xb = append(xb, x[o])
				}
				want := dft(xb, c.dims, float64(dir))
				for k, o := range offsets(&p.out, b) {
					touched[o] = true
					assert.InDelta(t, 0, cmplx.Abs(got[o]-want[k]), 1e-12*float64(n), "%s batch %d [%d]", c.name, b, k)
				}
			}
			for i, v := range got {
				if !touched[i] {
					assert.Equal(t, complex128(sentinel), v, "%s: element %d outside the layout", c.name, i)
				}
			}
			// complex64 through the same layout.
			x32 := make([]complex64, len(x))
			for i, v := range x {
				x32[i] = complex64(v)
			}
			p32 := newPlanMany(t, dev, C2C, c.dims, c.batch, c.l)
			out32 := upload(t, dev, make([]complex64, p.OutLen()))
			require.NoError(t, C2CExec(p32, s, upload(t, dev, x32), out32, dir))
			for i, v := range download(t, s, out32) {
				if touched[i] {
					assert.InDelta(t, 0, cmplx.Abs(complex128(v)-got[i]), 1e-5*float64(n), "%s C2C [%d]", c.name, i)
				}
			}
		}
	}
}

// Real transforms through advanced layouts: R2C matches the half spectrum
// of the DFT, C2R brings it back n times.
func TestLayoutReal(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range layouts {
		l := *c.l
		pd := newPlanMany(t, dev, D2Z, c.dims, c.batch, &l)
		n := prod(c.dims)
		x := make([]float64, pd.InLen())
		for b := range c.batch {
			for _, o := range offsets(&pd.in, b) {
				x[o] = r.Float64()*2 - 1
			}
		}
		out := upload(t, dev, make([]complex128, pd.OutLen()))
		require.NoError(t, R2CExec(pd, s, upload(t, dev, x), out), c.name)
		got := download(t, s, out)
		spec := make([]complex128, pd.OutLen()) // the spectrum, laid out as C2R's input below
		for b := range c.batch {
			var xb []complex128
			for _, o := range offsets(&pd.in, b) {
				xb = append(xb, complex(x[o], 0))
			}
			want := half(dft(xb, c.dims, -1), c.dims)
			for k, o := range offsets(&pd.out, b) {
				spec[o] = want[k]
				assert.InDelta(t, 0, cmplx.Abs(got[o]-want[k]), 1e-12*float64(n), "D2Z %s batch %d [%d]", c.name, b, k)
			}
		}
		// The inverse plan swaps the sides: in is the complex one.
		inv := Layout{InEmbed: l.OutEmbed, InStride: l.OutStride, InDist: l.OutDist, OutEmbed: l.InEmbed, OutStride: l.InStride, OutDist: l.InDist}
		pi := newPlanMany(t, dev, Z2D, c.dims, c.batch, &inv)
		back := upload(t, dev, make([]float64, pi.OutLen()))
		require.NoError(t, C2RExec(pi, s, upload(t, dev, spec), back))
		gotBack := download(t, s, back)
		for b := range c.batch {
			for _, o := range offsets(&pi.out, b) {
				assert.InDelta(t, x[o]*float64(n), gotBack[o], 1e-11*float64(n), "Z2D %s [%d]", c.name, o)
			}
		}
		x32 := make([]float32, len(x))
		for i, v := range x {
			x32[i] = float32(v)
		}
		pr := newPlanMany(t, dev, R2C, c.dims, c.batch, &l)
		out32 := upload(t, dev, make([]complex64, pr.OutLen()))
		require.NoError(t, R2CExec(pr, s, upload(t, dev, x32), out32))
		for b := range c.batch {
			for _, o := range offsets(&pr.out, b) {
				assert.InDelta(t, 0, cmplx.Abs(complex128(download(t, s, out32)[o])-got[o]), 1e-5*float64(n), "R2C %s [%d]", c.name, o)
			}
		}
	}
}

// In place: a complex transform on one buffer through one layout (the
// interleaved one included), and real transforms of the basic layout on
// cuFFT's padded rows.
func TestInPlace(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(9, 10))
	il := &Layout{InEmbed: []int{8}, InStride: 3, InDist: 1, OutEmbed: []int{8}, OutStride: 3, OutDist: 1}
	p := newPlanMany(t, dev, Z2Z, []int{8}, 3, il)
	x := randComplex(r, p.InLen())
	buf := upload(t, dev, x)
	require.NoError(t, C2CExec(p, s, buf, buf, Forward))
	got := download(t, s, buf)
	for b := range 3 {
		var xb []complex128
		for _, o := range offsets(&p.in, b) {
			xb = append(xb, x[o])
		}
		for k, o := range offsets(&p.out, b) {
			assert.InDelta(t, 0, cmplx.Abs(got[o]-dft(xb, []int{8}, -1)[k]), 1e-12*8, "interleaved in place [%d]", o)
		}
	}

	for _, dims := range [][]int{{8}, {7}, {4, 6}, {3, 2, 5}} {
		for _, batch := range []int{1, 3} {
			n := prod(dims)
			last := dims[len(dims)-1]
			h := last/2 + 1
			rows := n / last
			xr := make([]float64, n*batch)
			for i := range xr {
				xr[i] = r.Float64()*2 - 1
			}
			// The padded layout: row q of transform b at complex value
			// (b·rows + q)·h, its reals at twice that.
			padded := make([]complex128, rows*h*batch)
			reals := func(c []complex128) []float64 {
				return (*[1 << 30]float64)(unsafeComplexData(c))[: 2*len(c) : 2*len(c)]
			}
			pr := reals(padded)
			for q := range rows * batch {
				copy(pr[q*2*h:q*2*h+last], xr[q*last:(q+1)*last])
			}
			pd := newPlan(t, dev, D2Z, dims, batch)
			data := upload(t, dev, padded)
			require.NoError(t, R2CInPlace(pd, s, data))
			got := download(t, s, data)
			for b := range batch {
				xc := make([]complex128, n)
				for i := range xc {
					xc[i] = complex(xr[b*n+i], 0)
				}
				want := half(dft(xc, dims, -1), dims)
				for k := range want {
					assert.InDelta(t, 0, cmplx.Abs(got[b*rows*h+k]-want[k]), 1e-12*float64(n), "D2Z in place %v batch %d [%d]", dims, b, k)
				}
			}
			pi := newPlan(t, dev, Z2D, dims, batch)
			require.NoError(t, C2RInPlace(pi, s, data))
			back := reals(download(t, s, data))
			for q := range rows * batch {
				for j := range last {
					assert.InDelta(t, xr[q*last+j]*float64(n), back[q*2*h+j], 1e-11*float64(n), "Z2D in place %v row %d [%d]", dims, q, j)
				}
			}
			// float32 the same way.
			p32 := newPlan(t, dev, R2C, dims, batch)
			padded32 := make([]complex64, len(padded))
			for i, v := range padded {
				padded32[i] = complex64(v)
			}
			data32 := upload(t, dev, padded32)
			require.NoError(t, R2CInPlace(p32, s, data32))
			for i, v := range download(t, s, data32) {
				assert.InDelta(t, 0, cmplx.Abs(complex128(v)-got[i]), 1e-5*float64(n), "R2C in place %v [%d]", dims, i)
			}
		}
	}
}

// A layout that reaches past a buffer, or that cannot be, is refused
// before anything is queued.
func TestLayoutErrors(t *testing.T) {
	dev, s := newStream(t)
	for name, l := range map[string]*Layout{
		"one embed":         {InEmbed: []int{4, 8}, InStride: 1, InDist: 32},
		"embed rank":        {InEmbed: []int{8}, InStride: 1, InDist: 32, OutEmbed: []int{4, 8}, OutStride: 1, OutDist: 32},
		"embed under shape": {InEmbed: []int{4, 7}, InStride: 1, InDist: 32, OutEmbed: []int{4, 8}, OutStride: 1, OutDist: 32},
		"zero stride":       {InEmbed: []int{4, 8}, InStride: 0, InDist: 32, OutEmbed: []int{4, 8}, OutStride: 1, OutDist: 32},
		"zero dist":         {InEmbed: []int{4, 8}, InStride: 1, InDist: 32, OutEmbed: []int{4, 8}, OutStride: 1, OutDist: 0},
		"stride over int32": {InEmbed: []int{4, 8}, InStride: 1 << 31, InDist: 32, OutEmbed: []int{4, 8}, OutStride: 1, OutDist: 32},
	} {
		_, err := NewPlanMany(dev, C2C, []int{4, 8}, 2, l)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
	}
	// Embed[0] is not used, as with cuFFT.
	p := newPlanMany(t, dev, C2C, []int{4, 8}, 2, &Layout{InEmbed: []int{0, 10}, InStride: 2, InDist: 100, OutEmbed: []int{0, 8}, OutStride: 1, OutDist: 32})
	assert.Equal(t, 100+(3*10+7)*2+1, p.InLen())
	assert.Equal(t, 64, p.OutLen())
	orig := make([]complex64, 64)
	orig[5] = 3
	out := upload(t, dev, orig)
	short := upload(t, dev, make([]complex64, p.InLen()-1))
	assert.ErrorIs(t, C2CExec(p, s, short, out, Forward), gpu.ErrInvalidValue, "input overrun")
	assert.ErrorContains(t, C2CExec(p, s, short, out, Forward), "reaches")
	assert.ErrorIs(t, C2CExec(p, s, upload(t, dev, make([]complex64, p.InLen())), out.Sub(0, 63), Forward), gpu.ErrInvalidValue, "output overrun")
	assert.Equal(t, orig, download(t, s, out), "a refused call queues nothing")

	// In place needs one block per transform holding its input and output.
	q := newPlanMany(t, dev, Z2Z, []int{8}, 2, &Layout{InEmbed: []int{8}, InStride: 1, InDist: 8, OutEmbed: []int{8}, OutStride: 2, OutDist: 1})
	z := upload(t, dev, make([]complex128, 16))
	assert.ErrorIs(t, C2CExec(q, s, z, z, Forward), gpu.ErrInvalidValue, "in place across transforms")
	assert.ErrorIs(t, C2CExec(q, s, z.Sub(0, 16), z.Sub(1, 15), Forward), gpu.ErrInvalidValue, "partial overlap")
	// A real transform runs in place through its own entry points, with
	// the padded rows: a buffer of the unpadded size is refused.
	rp := newPlan(t, dev, R2C, []int{8}, 2)
	c := upload(t, dev, make([]complex64, 9))
	assert.ErrorIs(t, R2CInPlace(rp, s, c), gpu.ErrInvalidValue, "padded rows need 2·5 complex values")
	assert.NoError(t, R2CInPlace(rp, s, upload(t, dev, make([]complex64, 10))))
}

func newPlanMany(t *testing.T, dev *gpu.Device, k Kind, dims []int, batch int, l *Layout) *Plan {
	p, err := NewPlanMany(dev, k, dims, batch, l)
	if errors.Is(err, gpu.ErrNotSupported) {
		t.Skipf("no FFT on %s: %v", dev, err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Destroy() })
	return p
}

func unsafeComplexData(c []complex128) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(c)) }
