package fft

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
)

// C2C float32 transforms of 2^k points, batched so each run moves about
// 2^22 points, and gonum's single-threaded CmplxFFT on one transform
// beside them (the cpu agent's target: within 1.5x of it per transform).
func BenchmarkC2C(b *testing.B) {
	dev, s := newStream(b)
	for _, l := range []int{10, 16, 20} {
		n := 1 << l
		batch := max(1, (1<<22)/n)
		b.Run(fmt.Sprintf("n=2^%d/batch=%d", l, batch), func(b *testing.B) {
			p, err := NewPlan(dev, C2C, []int{n}, batch)
			if err != nil {
				b.Skip(err)
			}
			defer p.Destroy()
			in, _ := buffer.New[complex64](dev, n*batch)
			out, _ := buffer.New[complex64](dev, n*batch)
			defer in.Free()
			defer out.Free()
			gputest.Benchmark(b, s, func() error { return C2CExec(p, s, in, out, Forward) }, gputest.Bytes(int64(16*n*batch)))
		})
		b.Run(fmt.Sprintf("gonum-n=2^%d", l), func(b *testing.B) {
			f := fourier.NewCmplxFFT(n)
			x := make([]complex128, n)
			b.SetBytes(int64(16 * n))
			for b.Loop() {
				f.Coefficients(x, x)
			}
		})
	}
}

// One 2-D 1024×1024 C2C float32 transform: on the cpu agent its lines
// are split among the workers.
func BenchmarkC2C2D(b *testing.B) {
	dev, s := newStream(b)
	p, err := NewPlan(dev, C2C, []int{1024, 1024}, 1)
	if err != nil {
		b.Skip(err)
	}
	defer p.Destroy()
	in, _ := buffer.New[complex64](dev, 1<<20)
	out, _ := buffer.New[complex64](dev, 1<<20)
	defer in.Free()
	defer out.Free()
	gputest.Benchmark(b, s, func() error { return C2CExec(p, s, in, out, Forward) }, gputest.Bytes(16<<20))
}
