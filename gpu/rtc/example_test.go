package rtc_test

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/rtc"
	"github.com/hipgo/hipgo/gpu/stream"
)

const scaleSource = `
template <typename T>
__global__ void scale(T* x, T a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] *= a;
}
`

// Compile CUDA or HIP source for the device and launch a template
// instance by its expression. The cpu agent, where this example runs in
// CI, has no compiler: its kernels are written in Go.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := rtc.Compile(dev, scaleSource, rtc.Options{NameExpressions: []string{"scale<float>"}})
	if errors.Is(err, rtc.ErrNoCompiler) {
		fmt.Println("no compiler here: write the kernel in Go (cpu.Define)")
		return
	}
	if err != nil {
		fmt.Println(err) // a *rtc.CompileError carries the compiler's log
		return
	}
	defer m.Unload()
	scale := m.MustFunction("scale<float>")

	x, _ := buffer.FromSlice(dev, []float32{1, 2, 3})
	defer x.Free()
	s, _ := stream.New(dev)
	defer s.Destroy()
	if err := scale.Launch(s, gpu.D1(1), gpu.D1(64), 0, x, float32(2), int32(3)); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := x.ToSlice()
	fmt.Println(got)
	// Output: no compiler here: write the kernel in Go (cpu.Define)
}
