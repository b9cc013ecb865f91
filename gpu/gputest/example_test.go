package gputest_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// A benchmark of saxpy on 2^16 float32: ns/op includes the kernels' work,
// and the GPU's own time is reported beside it, with the bandwidth and
// FLOP rate of that time. In a _test.go file it is a BenchmarkSaxpy
// function; testing.Benchmark runs it here.
func ExampleBenchmark() {
	const n = 1 << 16
	r := testing.Benchmark(func(b *testing.B) {
		dev := gputest.Device(b)
		s, err := stream.DefaultStream(dev)
		if err != nil {
			b.Fatal(err)
		}
		x, err := buffer.FromSlice(dev, make([]float32, n))
		if err != nil {
			b.Fatal(err)
		}
		defer x.Free()
		y, err := buffer.FromSlice(dev, make([]float32, n))
		if err != nil {
			b.Fatal(err)
		}
		defer y.Free()
		gputest.Benchmark(b, s, func() error { return kernels.Saxpy(s, 2, x, y, n) },
			gputest.Bytes(3*4*n), // read x and y, write y
			gputest.FLOPs(2*n))
	})
	var units []string
	for u := range r.Extra {
		units = append(units, u)
	}
	slices.Sort(units)
	fmt.Println(units)
	fmt.Println(r.Extra["gpu-ns/op"] > 0 && r.Extra["GB/s"] > 0)
	// Output:
	// [GB/s GFLOP/s gpu-ns/op window-ns/op]
	// true
}
