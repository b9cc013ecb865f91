package fft

import (
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

func newStream(t testing.TB) (*gpu.Device, *stream.Stream) {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return dev, s
}

func upload[T any](t testing.TB, dev *gpu.Device, h []T) *buffer.Buffer[T] {
	b, err := buffer.New[T](dev, len(h))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	require.NoError(t, b.CopyFrom(h))
	return b
}

func download[T any](t testing.TB, s *stream.Stream, b *buffer.Buffer[T]) []T {
	require.NoError(t, s.Synchronize())
	h := make([]T, b.Len())
	require.NoError(t, b.CopyTo(h))
	return h
}

// newPlan makes a plan or skips where the device has no FFT library.
func newPlan(t *testing.T, dev *gpu.Device, k Kind, dims []int, batch int) *Plan {
	p, err := NewPlan(dev, k, dims, batch)
	if errors.Is(err, gpu.ErrNotSupported) {
		t.Skipf("no FFT on %s: %v", dev, err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Destroy() })
	return p
}

// dft is the naive multi-dimensional DFT of x (shape dims, row-major) with
// sign -1 (forward) or +1, unscaled.
func dft(x []complex128, dims []int, sign float64) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	idx := func(i int) []int {
		c := make([]int, len(dims))
		for a := len(dims) - 1; a >= 0; a-- {
			c[a] = i % dims[a]
			i /= dims[a]
		}
		return c
	}
	for k := 0; k < n; k++ {
		kc := idx(k)
		var sum complex128
		for j := 0; j < n; j++ {
			jc := idx(j)
			ph := 0.0
			for a := range dims {
				ph += float64(jc[a]*kc[a]%dims[a]) / float64(dims[a])
			}
			sum += x[j] * cmplx.Rect(1, sign*2*math.Pi*ph)
		}
		out[k] = sum
	}
	return out
}

func randComplex(r *rand.Rand, n int) []complex128 {
	x := make([]complex128, n)
	for i := range x {
		x[i] = complex(r.Float64()*2-1, r.Float64()*2-1)
	}
	return x
}

func prod(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// half keeps the last axis's first n/2+1 entries of x (shape dims).
func half(x []complex128, dims []int) []complex128 {
	last := dims[len(dims)-1]
	h := last/2 + 1
	var out []complex128
	for r := 0; r < len(x)/last; r++ {
		out = append(out, x[r*last:r*last+h]...)
	}
	return out
}

var shapes = [][]int{{1}, {2}, {7}, {16}, {30}, {4, 6}, {5, 3}, {3, 4, 5}, {2, 2, 8}}

func TestC2CMatchesDFT(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, dims := range shapes {
		for _, batch := range []int{1, 3} {
			n := prod(dims)
			x := randComplex(r, n*batch)
			for _, dir := range []Direction{Forward, Inverse} {
				want := make([]complex128, 0, n*batch)
				for b := range batch {
					want = append(want, dft(x[b*n:(b+1)*n], dims, float64(dir))...)
				}
				// complex128, out of place and in place.
				pz := newPlan(t, dev, Z2Z, dims, batch)
				in, out := upload(t, dev, x), upload(t, dev, make([]complex128, n*batch))
				require.NoError(t, C2CExec(pz, s, in, out, dir))
				got := download(t, s, out)
				require.NoError(t, C2CExec(pz, s, in, in, dir))
				gotIn := download(t, s, in)
				x32 := make([]complex64, len(x))
				for i, v := range x {
					x32[i] = complex64(v)
				}
				pc := newPlan(t, dev, C2C, dims, batch)
				in32, out32 := upload(t, dev, x32), upload(t, dev, make([]complex64, n*batch))
				require.NoError(t, C2CExec(pc, s, in32, out32, dir))
				got32 := download(t, s, out32)
				tol := 1e-12 * float64(n)
				for i := range want {
					assert.InDelta(t, 0, cmplx.Abs(got[i]-want[i]), tol, "Z2Z %v batch %d dir %d [%d]", dims, batch, dir, i)
					assert.InDelta(t, 0, cmplx.Abs(gotIn[i]-want[i]), tol, "Z2Z in place %v [%d]", dims, i)
					assert.InDelta(t, 0, cmplx.Abs(complex128(got32[i])-want[i]), 1e-5*float64(n), "C2C %v [%d]", dims, i)
				}
			}
		}
	}
}

func TestRealMatchesDFT(t *testing.T) {
	dev, s := newStream(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, dims := range shapes {
		for _, batch := range []int{1, 2} {
			n := prod(dims)
			hn := n / dims[len(dims)-1] * (dims[len(dims)-1]/2 + 1)
			xr := make([]float64, n*batch)
			for i := range xr {
				xr[i] = r.Float64()*2 - 1
			}
			var want []complex128
			for b := range batch {
				xc := make([]complex128, n)
				for i := range xc {
					xc[i] = complex(xr[b*n+i], 0)
				}
				want = append(want, half(dft(xc, dims, -1), dims)...)
			}
			pd := newPlan(t, dev, D2Z, dims, batch)
			out := upload(t, dev, make([]complex128, hn*batch))
			require.NoError(t, R2CExec(pd, s, upload(t, dev, xr), out))
			got := download(t, s, out)
			xr32 := make([]float32, len(xr))
			for i, v := range xr {
				xr32[i] = float32(v)
			}
			pr := newPlan(t, dev, R2C, dims, batch)
			out32 := upload(t, dev, make([]complex64, hn*batch))
			require.NoError(t, R2CExec(pr, s, upload(t, dev, xr32), out32))
			got32 := download(t, s, out32)
			require.Len(t, got, len(want))
			for i := range want {
				assert.InDelta(t, 0, cmplx.Abs(got[i]-want[i]), 1e-12*float64(n), "D2Z %v batch %d [%d]", dims, batch, i)
				assert.InDelta(t, 0, cmplx.Abs(complex128(got32[i])-want[i]), 1e-5*float64(n), "R2C %v [%d]", dims, i)
			}
			// C2R of the spectrum is n times the input.
			pi := newPlan(t, dev, Z2D, dims, batch)
			back := upload(t, dev, make([]float64, n*batch))
			require.NoError(t, C2RExec(pi, s, upload(t, dev, want), back))
			for i, v := range download(t, s, back) {
				assert.InDelta(t, xr[i]*float64(n), v, 1e-11*float64(n), "Z2D %v [%d]", dims, i)
			}
			want32 := make([]complex64, len(want))
			for i, v := range want {
				want32[i] = complex64(v)
			}
			pi32 := newPlan(t, dev, C2R, dims, batch)
			back32 := upload(t, dev, make([]float32, n*batch))
			require.NoError(t, C2RExec(pi32, s, upload(t, dev, want32), back32))
			for i, v := range download(t, s, back32) {
				assert.InDelta(t, xr[i]*float64(n), float64(v), 1e-5*float64(n), "C2R %v [%d]", dims, i)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	dev, s := newStream(t)
	for name, c := range map[string]struct {
		kind  Kind
		dims  []int
		batch int
	}{
		"no dims":      {C2C, nil, 1},
		"four dims":    {C2C, []int{2, 2, 2, 2}, 1},
		"zero size":    {C2C, []int{4, 0}, 1},
		"zero batch":   {C2C, []int{4}, 0},
		"unknown kind": {Kind(9), []int{4}, 1},
	} {
		_, err := NewPlan(dev, c.kind, c.dims, c.batch)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
	}
	_, err := NewPlan(nil, C2C, []int{4}, 1)
	assert.ErrorIs(t, err, gpu.ErrInvalidDevice)

	p := newPlan(t, dev, C2C, []int{8}, 2)
	in := upload(t, dev, make([]complex64, 16))
	short := upload(t, dev, make([]complex64, 15))
	z := upload(t, dev, make([]complex128, 16))
	orig := make([]complex64, 16)
	orig[3] = 1
	out := upload(t, dev, orig)
	for name, c := range map[string]struct {
		err  error
		code gpu.ErrorCode
	}{
		"nil plan":      {C2CExec[complex64](nil, s, in, out, Forward), gpu.ErrInvalidHandle},
		"nil stream":    {C2CExec(p, nil, in, out, Forward), gpu.ErrInvalidHandle},
		"nil in":        {C2CExec(p, s, nil, out, Forward), gpu.ErrInvalidValue},
		"short in":      {C2CExec(p, s, short, out, Forward), gpu.ErrInvalidValue},
		"short out":     {C2CExec(p, s, in, short, Forward), gpu.ErrInvalidValue},
		"bad direction": {C2CExec(p, s, in, out, Direction(0)), gpu.ErrInvalidValue},
		"wrong type":    {C2CExec(p, s, z, z, Forward), gpu.ErrInvalidValue},
		"overlap":       {C2CExec[complex64](p, s, in.Sub(0, 16), in.Sub(0, 16), Forward), gpu.Success},
		"partial":       {C2CExec[complex64](p, s, out.Sub(1, 15), out.Sub(0, 16), Forward), gpu.ErrInvalidValue},
	} {
		if c.code == gpu.Success {
			assert.NoError(t, c.err, name)
			continue
		}
		assert.ErrorIs(t, c.err, c.code, name)
	}
	rp := newPlan(t, dev, R2C, []int{8}, 1)
	f := upload(t, dev, make([]float32, 8))
	assert.ErrorIs(t, R2CExec(rp, s, f, short.Sub(0, 4)), gpu.ErrInvalidValue, "short R2C out: 5 wanted")
	assert.Equal(t, orig, download(t, s, out), "a failed call queues nothing")
	q, err := NewPlan(dev, C2C, []int{4}, 1)
	require.NoError(t, err)
	require.NoError(t, q.Destroy())
	assert.ErrorIs(t, q.Destroy(), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, C2CExec(q, s, in, out, Forward), gpu.ErrInvalidHandle)
}

// With fewer transforms than processors, a transform's rows and lines are
// split among helpers: the same results as the naive DFT, at every size.
func TestSplitLinesMatchesDFT(t *testing.T) {
	prevMin, prevProcs := parallelMin, runtime.GOMAXPROCS(4)
	parallelMin = 1
	defer func() { parallelMin = prevMin; runtime.GOMAXPROCS(prevProcs) }()
	t.Run("C2C", TestC2CMatchesDFT)
	t.Run("real", TestRealMatchesDFT)
}
