// Command own_kernel runs a kernel of its own, written once in Go
// (poly.go), on whatever device the machine has: the cpu agent runs the Go
// function itself, a GPU runs its C++ translation.
//
//	go run ./examples/own_kernel
//
// `go generate` (hipgo-gen -go) wrote kernels_gen.go and gen/: the C++,
// the code objects clang-19 built from it (embedded, so users need no
// compiler) and LaunchPoly3, a typed launcher.
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Poly3 computes y[i] = a*x[i]^3 + b*x[i]^2 + c*x[i] + d on s.
func Poly3(s *stream.Stream, x, y *buffer.Buffer[float32], a, b, c, d float32) error {
	if x == nil || y == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "poly3", "nil buffer")
	}
	const block = 256
	return LaunchPoly3(s, gpu.D1(gpu.Blocks(y.Len(), block)), gpu.D1(block), 0, x, y, a, b, c, d)
}

// run evaluates the cubic over n points of [-1, 1] on dev and returns the
// result and the largest difference from the same cubic on the host.
func run(dev *gpu.Device, n int) ([]float32, float64, error) {
	s, err := stream.New(dev)
	if err != nil {
		return nil, 0, err
	}
	defer s.Destroy()
	in := make([]float32, n)
	for i := range in {
		in[i] = -1 + 2*float32(i)/float32(max(n-1, 1))
	}
	x, err := buffer.FromSlice(dev, in)
	if err != nil {
		return nil, 0, err
	}
	defer x.Free()
	y, err := buffer.New[float32](dev, n)
	if err != nil {
		return nil, 0, err
	}
	defer y.Free()
	if err := Poly3(s, x, y, 2, -1, 0.5, 3); err != nil {
		return nil, 0, err
	}
	out := make([]float32, n)
	if err := stream.CopyToHost(s, out, y, 0); err != nil {
		return nil, 0, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, 0, err
	}
	worst := 0.0
	for i, v := range in {
		want := ((2*float64(v)-1)*float64(v)+0.5)*float64(v) + 3
		worst = max(worst, math.Abs(want-float64(out[i])))
	}
	return out, worst, nil
}

func main() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer gpu.Shutdown()
	const n = 1 << 20
	out, worst, err := run(dev, n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s\npoly3 of %d float32: y(-1) = %g, y(0) = %.4g, y(1) = %g, largest error %.2g\n", dev, n, out[0], out[n/2], out[n-1], worst)
	if worst > 1e-5 {
		fmt.Println("FAILED")
		os.Exit(1)
	}
	fmt.Println("PASSED")
}
