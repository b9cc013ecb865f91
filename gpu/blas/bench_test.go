package blas_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gblas "gonum.org/v1/gonum/blas"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// BenchmarkGemmCPU is n×n gemm on the cpu agent beside gonum called
// directly on Go slices in the same run: the stream is the only
// difference (target: blas ≥ 0.97× gonum).
func BenchmarkGemmCPU(b *testing.B) {
	const n = 1024
	b.Run(fmt.Sprintf("sgemm/n=%d/impl=gonum", n), func(b *testing.B) { gonumGemm[float32](b, n) })
	b.Run(fmt.Sprintf("sgemm/n=%d/impl=blas", n), func(b *testing.B) { blasGemm[float32](b, gputest.DeviceOf(b, "cpu"), n) })
	b.Run(fmt.Sprintf("dgemm/n=%d/impl=gonum", n), func(b *testing.B) { gonumGemm[float64](b, n) })
	b.Run(fmt.Sprintf("dgemm/n=%d/impl=blas", n), func(b *testing.B) { blasGemm[float64](b, gputest.DeviceOf(b, "cpu"), n) })
}

// BenchmarkGemmGPU is n×n gemm through the vendor library on the default
// GPU, and the project's own sgemm kernel beside it; it is skipped on the
// cpu agent.
func BenchmarkGemmGPU(b *testing.B) {
	dev := gputest.Device(b)
	if dev.Properties().IsCPU {
		b.Skip("no GPU: set HIPGO_DRIVER=cuda or rocm")
	}
	for _, n := range []int{4096, 8192} {
		b.Run(fmt.Sprintf("sgemm/n=%d/impl=blas", n), func(b *testing.B) { blasGemm[float32](b, gputest.Device(b), n) })
		b.Run(fmt.Sprintf("dgemm/n=%d/impl=blas", n), func(b *testing.B) { blasGemm[float64](b, gputest.Device(b), n) })
		b.Run(fmt.Sprintf("sgemm/n=%d/impl=kernels", n), func(b *testing.B) { kernelSgemm(b, gputest.Device(b), n) })
	}
}

func flops(n int) float64 { return 2 * float64(n) * float64(n) * float64(n) }

// reportTFLOPs adds TFLOP/s of wall time per operation.
func reportTFLOPs(b *testing.B, n int) {
	if b.N > 0 && b.Elapsed() > 0 {
		b.ReportMetric(flops(n)*float64(b.N)/b.Elapsed().Seconds()/1e12, "TFLOP/s")
	}
}

func gonumGemm[T blas.Float](b *testing.B, n int) {
	r := rand.New(rand.NewPCG(1, 1))
	x, y, z := random[T](r, n*n), random[T](r, n*n), make([]T, n*n)
	b.ReportAllocs()
	for b.Loop() {
		switch x := any(x).(type) {
		case []float32:
			ref.Sgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, x, n, any(y).([]float32), n, 0, any(z).([]float32), n)
		case []float64:
			ref.Dgemm(gblas.NoTrans, gblas.NoTrans, n, n, n, 1, x, n, any(y).([]float64), n, 0, any(z).([]float64), n)
		}
	}
	reportTFLOPs(b, n)
}

func blasGemm[T blas.Float](b *testing.B, dev *gpu.Device, n int) {
	r := rand.New(rand.NewPCG(1, 1))
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Destroy() })
	h, err := blas.New(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = h.Destroy() })
	x, y, z := benchBuf(b, dev, random[T](r, n*n)), benchBuf(b, dev, random[T](r, n*n)), benchBuf(b, dev, make([]T, n*n))
	b.ReportAllocs()
	gputest.Benchmark(b, s, func() error {
		return blas.Gemm(h, blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
	}, gputest.FLOPs(flops(n)))
	reportTFLOPs(b, n)
}

func kernelSgemm(b *testing.B, dev *gpu.Device, n int) {
	r := rand.New(rand.NewPCG(1, 1))
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Destroy() })
	x, y, z := benchBuf(b, dev, random[float32](r, n*n)), benchBuf(b, dev, random[float32](r, n*n)), benchBuf(b, dev, make([]float32, n*n))
	gputest.Benchmark(b, s, func() error { return kernels.Sgemm(s, n, n, n, 1, x, y, 0, z) }, gputest.FLOPs(flops(n)))
	reportTFLOPs(b, n)
}

func benchBuf[T blas.Float](b *testing.B, dev *gpu.Device, v []T) *buffer.Buffer[T] {
	buf, err := buffer.FromSlice(dev, v)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = buf.Free() })
	return buf
}
