package benchmarks

import (
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// BenchmarkAllocAsync4K is a 4 KiB stream-ordered allocate + free
// (hipMallocAsync + hipFreeAsync) beside buffer.New + Free, on the device
// HIPGO_DRIVER names; its native peer is cuMemAllocAsync + cuMemFreeAsync
// (benchmarks/peers/native_cuda.c, alloc_async_4k).
func BenchmarkAllocAsync4K(b *testing.B) {
	dev := gputest.Device(b)
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	b.Run("impl=NewAsync+FreeAsync", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x, err := buffer.NewAsync[byte](s, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := x.FreeAsync(s); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Synchronize(); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("impl=New+Free", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x, err := buffer.New[byte](dev, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := x.Free(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCopy2D copies an n×n float32 sub-matrix (columns 32.. of the
// source) between two pitched allocations (hipMemcpy2DAsync), 8192×8192
// on a GPU, beside a linear copy of the same bytes; gputest times both on
// the device. Its native peer is cuMemcpy2DAsync (memcpy2d_8192).
func BenchmarkCopy2D(b *testing.B) {
	dev := gputest.Device(b)
	n := 8192
	if dev.Properties().IsCPU {
		n = 1024
	}
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	src, err := buffer.NewPitched[float32](dev, n+64, n)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Free()
	dst, err := buffer.NewPitched[float32](dev, n+64, n)
	if err != nil {
		b.Fatal(err)
	}
	defer dst.Free()
	bytes := gputest.Bytes(2 * 4 * int64(n) * int64(n)) // read and written
	b.Run("impl=pitched", func(b *testing.B) {
		gputest.Benchmark(b, s, func() error { return stream.Copy2D(s, dst.View(), src.View().At(32, 0), n, n) }, bytes)
	})
	b.Run("impl=linear", func(b *testing.B) {
		x, err := buffer.New[float32](dev, n*n)
		if err != nil {
			b.Fatal(err)
		}
		defer x.Free()
		y, err := buffer.New[float32](dev, n*n)
		if err != nil {
			b.Fatal(err)
		}
		defer y.Free()
		gputest.Benchmark(b, s, func() error { return s.Copy(y, 0, x, 0, n*n) }, bytes)
	})
}
