// Command hip_kernel runs a kernel a HIP or CUDA programmer brings as C++
// (src/poly.hip) on whatever device the machine has. The cpu agent runs
// no C++, so the kernel has a Go twin for it here; a kernel written in Go
// (examples/own_kernel) needs none and runs everywhere from one source.
//
//	go run ./examples/hip_kernel
//
// build.sh (run by go generate) writes the header src/hipgo.h and compiles
// the source with clang-19 into an AMDGPU offload bundle and NVIDIA PTX
// under gen/, then regenerates launch_gen.go with cmd/hipgo-gen: LaunchPoly3
// takes one typed Go parameter per C parameter, checked against every code
// object, and the loader it calls embeds the code objects.
//
//go:generate bash build.sh
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// poly3Args is the kernarg layout of poly3(const float *x, float *y,
// float a, float b, float c, float d, int n).
type poly3Args struct {
	X          rocr.ConstPtr[float32]
	Y          rocr.Ptr[float32]
	A, B, C, D float32
	N          int32
}

// poly3 is the kernel for the cpu agent: each work-group takes its range
// of elements at once.
var poly3 = kernel.Define("poly3", func(b *kernel.Block, a *poly3Args) {
	lo, hi := b.Span(0, int(a.N))
	if lo == hi {
		return
	}
	y := a.Y.Slice(b, lo, hi)
	x := a.X.Slice(b, lo, hi)[:len(y)]
	for i, v := range x {
		y[i] = ((a.A*v+a.B)*v+a.C)*v + a.D
	}
})

// cpuKernels is the kernel for the cpu agent; the generated loader
// (launch_gen.go) loads it beside the embedded code objects, and
// module.Load picks the device's form.
var cpuKernels = kernel.NewSet("hip_kernel", poly3)

// Poly3 computes y[i] = a*x[i]^3 + b*x[i]^2 + c*x[i] + d on s.
func Poly3(s *stream.Stream, x, y *buffer.Buffer[float32], a, b, c, d float32) error {
	if x == nil || y == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "poly3", "nil buffer")
	}
	n := min(x.Len(), y.Len())
	const block = 256
	return LaunchPoly3(s, gpu.D1(gpu.Blocks(n, block)), gpu.D1(block), 0, x, y, a, b, c, d, int32(n))
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
