package kernels_test

import (
	"math/rand/v2"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// BenchmarkSgemm multiplies 256x256 matrices: on the cpu agent it
// measures how the kernel's barriers are run.
func BenchmarkSgemm(b *testing.B) {
	const m, n, k = 256, 256, 256
	b.Cleanup(func() {
		if err := gpu.Shutdown(); err != nil {
			b.Error(err)
		}
	})
	dev, err := gpu.Default()
	if err != nil {
		b.Fatal(err)
	}
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	r := rand.New(rand.NewPCG(1, 2))
	var bufs []*buffer.Buffer[float32]
	for _, size := range []int{m * k, k * n, m * n} {
		x, err := buffer.FromSlice(dev, random(r, size))
		if err != nil {
			b.Fatal(err)
		}
		defer x.Free()
		bufs = append(bufs, x)
	}
	b.SetBytes(4 * (m*k + k*n + 2*m*n))
	b.ReportAllocs()
	for b.Loop() {
		if err := kernels.Sgemm(s, m, n, k, 1, bufs[0], bufs[1], 0.5, bufs[2]); err != nil {
			b.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*m*n*k/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "GFLOP/s")
}
