package stream_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type scaleArgs struct {
	X     rocr.Ptr[float32]
	Alpha float32
	N     int32
}

// scale multiplies x by alpha: a Go kernel for the cpu agent, written per
// work-group.
var scale = kernel.Define("example_scale", func(g *kernel.Block, a *scaleArgs) {
	lo, hi := g.Span(0, int(a.N))
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] *= a.Alpha
	}
})

// Copies, a launch and an event on a stream; then a second stream waits for
// the event before reading the result.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	mod, err := module.Load(dev, kernel.NewSet("example", scale))
	if err != nil {
		fmt.Println(err)
		return
	}
	fn := mod.MustFunction("example_scale")

	s1, _ := stream.New(dev)
	s2, _ := stream.NewWithFlags(dev, stream.NonBlocking, stream.PriorityHigh)
	done, _ := stream.NewEvent(dev, stream.EventDefault)
	x, _ := buffer.New[float32](dev, 1000)

	in := make([]float32, 1000)
	for i := range in {
		in[i] = float32(i)
	}
	_ = stream.CopyToDevice(s1, x, 0, in)
	_ = module.LaunchKernelGGL(fn, gpu.D1(gpu.Blocks(1000, 256)), gpu.D1(256), 0, s1, x, float32(3), int32(1000))
	_ = s1.Record(done)

	_ = s2.WaitEvent(done)
	out := make([]float32, 4)
	_ = stream.CopyToHost(s2, out, x, 996)
	if err := s2.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out)
	fmt.Println(done.Query() == nil)
	// Output:
	// [2988 2991 2994 2997]
	// true
}

// Query says whether a stream is busy; gpu.ErrNotReady is a value, not a
// failure.
func ExampleStream_Query() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()
	ran := make(chan struct{})
	_ = s.LaunchHostFunc(func() error { <-ran; return nil })
	fmt.Println(s.Query() == gpu.ErrNotReady)
	close(ran)
	_ = s.Synchronize()
	fmt.Println(s.Query())
	// Output:
	// true
	// <nil>
}
