package fft

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// benchLogs are the 1-D benchmarks' sizes as powers of two: on a GPU the
// issue's 2^10 to 2^24 (every even power), on the cpu agent 2^10, 2^16
// and 2^20. Each run moves about 2^22 points: a batch of 2^22/n
// transforms (one at 2^24).
func benchLogs(dev *gpu.Device) []int {
	if dev.Properties().IsCPU {
		return []int{10, 16, 20}
	}
	return []int{10, 12, 14, 16, 18, 20, 22, 24}
}

// C2C float32 transforms of 2^k points, batched, and gonum's
// single-threaded CmplxFFT on one transform beside them on the cpu agent
// (its target: within 1.5x of it per transform). benchmarks/peers/
// fftrand.sh runs these on a GPU beside cupy.fft, by the same names.
func BenchmarkC2C(b *testing.B) {
	dev, s := newStream(b)
	for _, l := range benchLogs(dev) {
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
		if !dev.Properties().IsCPU {
			continue
		}
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

// R2C float32 transforms of 2^k real points (2^(k-1)+1 complex values
// out), batched as BenchmarkC2C's.
func BenchmarkR2C(b *testing.B) {
	dev, s := newStream(b)
	for _, l := range benchLogs(dev) {
		n := 1 << l
		batch := max(1, (1<<22)/n)
		b.Run(fmt.Sprintf("n=2^%d/batch=%d", l, batch), func(b *testing.B) {
			p, err := NewPlan(dev, R2C, []int{n}, batch)
			if err != nil {
				b.Skip(err)
			}
			defer p.Destroy()
			in, _ := buffer.New[float32](dev, n*batch)
			out, _ := buffer.New[complex64](dev, (n/2+1)*batch)
			defer in.Free()
			defer out.Free()
			gputest.Benchmark(b, s, func() error { return R2CExec(p, s, in, out) }, gputest.Bytes(int64((4*n+8*(n/2+1))*batch)))
		})
	}
}

// One 2-D C2C float32 transform of 1024x1024 and, on a GPU, of 4096x4096
// points: on the cpu agent its lines are split among the workers.
func BenchmarkC2C2D(b *testing.B) {
	dev, s := newStream(b)
	sides := []int{1024, 4096}
	if dev.Properties().IsCPU {
		sides = sides[:1]
	}
	for _, m := range sides {
		b.Run(fmt.Sprintf("%dx%d", m, m), func(b *testing.B) {
			p, err := NewPlan(dev, C2C, []int{m, m}, 1)
			if err != nil {
				b.Skip(err)
			}
			defer p.Destroy()
			in, _ := buffer.New[complex64](dev, m*m)
			out, _ := buffer.New[complex64](dev, m*m)
			defer in.Free()
			defer out.Free()
			gputest.Benchmark(b, s, func() error { return C2CExec(p, s, in, out, Forward) }, gputest.Bytes(int64(16*m*m)))
		})
	}
}

// fftCPUCases are the cpu agent's benchmark cases: one transform of 2^10,
// 2^16 and 2^20 points and a batch of 64 of 2^12, each kind.
var fftCPUCases = []struct{ log, batch int }{{10, 1}, {16, 1}, {20, 1}, {12, 64}}

// The cpu agent's C2C, Z2Z, R2C and D2Z transforms (fftCPUCases), with
// ns/transform reported; BenchmarkGonumFourier runs gonum's CmplxFFT and
// FFT single-threaded on the same kinds, sizes and batches in complex128
// and float64 (the target: within 1.5x of it per transform,
// faster on batches by the cores used). Run the two interleaved:
//
//	for i in 1 2 3 4 5; do go test -run '^$' -bench 'FFTCPU|GonumFourier' -count 1 ./gpu/fft; done
func BenchmarkFFTCPU(b *testing.B) {
	dev := gputest.DeviceOf(b, "cpu")
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	for _, kind := range []Kind{C2C, Z2Z, R2C, D2Z} {
		for _, c := range fftCPUCases {
			n := 1 << c.log
			b.Run(fmt.Sprintf("%v/n=2^%d/batch=%d", kind, c.log, c.batch), func(b *testing.B) {
				p, err := NewPlan(dev, kind, []int{n}, c.batch)
				if err != nil {
					b.Fatal(err)
				}
				defer p.Destroy()
				var exec func() error
				switch kind {
				case C2C:
					in, out := cpuBufs[complex64, complex64](b, dev, n*c.batch, n*c.batch)
					exec = func() error { return C2CExec(p, s, in, out, Forward) }
				case Z2Z:
					in, out := cpuBufs[complex128, complex128](b, dev, n*c.batch, n*c.batch)
					exec = func() error { return C2CExec(p, s, in, out, Forward) }
				case R2C:
					in, out := cpuBufs[float32, complex64](b, dev, n*c.batch, (n/2+1)*c.batch)
					exec = func() error { return R2CExec(p, s, in, out) }
				default:
					in, out := cpuBufs[float64, complex128](b, dev, n*c.batch, (n/2+1)*c.batch)
					exec = func() error { return R2CExec(p, s, in, out) }
				}
				b.ReportAllocs()
				gputest.Benchmark(b, s, exec)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.batch), "ns/transform")
			})
		}
	}
}

// cpuBufs is an input and an output buffer of n and m elements, freed
// when b ends.
func cpuBufs[I, O any](b *testing.B, dev *gpu.Device, n, m int) (*buffer.Buffer[I], *buffer.Buffer[O]) {
	in, err := buffer.New[I](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	out, err := buffer.New[O](dev, m)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = in.Free(); _ = out.Free() })
	return in, out
}

func BenchmarkGonumFourier(b *testing.B) {
	for _, kind := range []string{"C2C", "R2C"} {
		for _, c := range fftCPUCases {
			n := 1 << c.log
			b.Run(fmt.Sprintf("%s/n=2^%d/batch=%d", kind, c.log, c.batch), func(b *testing.B) {
				x := make([]complex128, n*c.batch)
				r := make([]float64, n*c.batch)
				y := make([]complex128, n/2+1)
				cf, rf := fourier.NewCmplxFFT(n), fourier.NewFFT(n)
				b.ReportAllocs()
				for b.Loop() {
					for i := range c.batch {
						if kind == "C2C" {
							s := x[i*n : (i+1)*n]
							cf.Coefficients(s, s)
						} else {
							rf.Coefficients(y, r[i*n:(i+1)*n])
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*c.batch), "ns/transform")
			})
		}
	}
}
