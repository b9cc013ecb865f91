package rand

import (
	"fmt"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// benchLogs are the benchmarks' sizes as powers of two: 2^20 and 2^24, and
// on a GPU 2^26 and 2^28 too (the targets).
func benchLogs(s *stream.Stream) []int {
	if s.Device().Properties().IsCPU {
		return []int{20, 24}
	}
	return []int{20, 24, 26, 28}
}

func benchFill[T any](b *testing.B, name string, size int64, fill func(*Generator, *stream.Stream, buffer.Array[T]) error) {
	dev, s := newStream(b)
	for _, l := range benchLogs(s) {
		b.Run(fmt.Sprintf("%s/2^%d", name, l), func(b *testing.B) {
			out := newBuf[T](b, dev, 1<<l)
			g := NewPhilox(1)
			gputest.Benchmark(b, s, func() error { return fill(g, s, out) }, gputest.Bytes(size<<l))
		})
	}
}

func BenchmarkUniform(b *testing.B) {
	benchFill(b, "float32", 4, Uniform[float32])
	benchFill(b, "float64", 8, Uniform[float64])
}

func BenchmarkNormal(b *testing.B) {
	benchFill(b, "float32", 4, func(g *Generator, s *stream.Stream, out buffer.Array[float32]) error {
		return Normal(g, s, out, 0, 1)
	})
	benchFill(b, "float64", 8, func(g *Generator, s *stream.Stream, out buffer.Array[float64]) error {
		return Normal(g, s, out, 0, 1)
	})
}

func BenchmarkBits(b *testing.B) {
	benchFill(b, "uint32", 4, Bits[uint32])
	benchFill(b, "uint64", 8, Bits[uint64])
}
