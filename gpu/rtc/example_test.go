package rtc_test

import (
	"errors"
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/rtc"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

const scaleSource = `
template <typename T>
__global__ void scale(T* x, T a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] *= a;
}
`

// scaleArgs is scale<float>'s kernarg layout, for the Go twin.
type scaleArgs struct {
	X rocr.Ptr[float32]
	A float32
	N int32
}

// scaleGo is scale<float> for the cpu agent, which has no compiler.
var scaleGo = kernel.NewSet("example-scale", kernel.Define("scale<float>", func(g *kernel.Block, a *scaleArgs) {
	lo, hi := g.Span(0, int(a.N))
	if lo == hi {
		return
	}
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] *= a.A
	}
}))

// Compile CUDA or HIP source for the device and launch a template
// instance by its expression. The cpu agent, where this example runs in
// CI, has no compiler: there the same kernel is written in Go.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	var scale *module.Function
	m, err := rtc.Compile(dev, scaleSource, rtc.Options{NameExpressions: []string{"scale<float>"}})
	switch {
	case errors.Is(err, rtc.ErrNoCompiler):
		gm, err := module.Load(dev, scaleGo)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer gm.Unload()
		scale = gm.MustFunction("scale<float>")
	case err != nil:
		fmt.Println(err) // a *rtc.CompileError carries the compiler's log
		return
	default:
		defer m.Unload()
		scale = m.MustFunction("scale<float>")
	}

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
	// Output: [2 4 6]
}
