package graph_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// A fill and two kernels, instantiated once and launched three times; the
// second kernel's scale changes between launches.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	ks, _ := kernels.Load(dev)
	x, _ := buffer.New[float32](dev, 256)
	y, _ := buffer.New[float32](dev, 256)
	_ = x.CopyFrom(make([]float32, 256))
	s, _ := stream.New(dev)

	grid, block := gpu.D1(1), gpu.D1(256)
	g := graph.New()
	fill, _ := graph.AddFill(g, x, float32(1))
	first, _ := g.AddKernel(graph.Kernel{Func: ks.FillF32, Grid: grid, Block: block, Args: []any{y, float32(1), int32(256)}})
	second, _ := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: grid, Block: block, Args: []any{float32(2), x, y, int32(256)}}, fill, first)
	e, err := g.Instantiate(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	out := make([]float32, 1)
	for i := 0; i < 3; i++ {
		alpha := float32(2 + i)
		_ = e.SetKernelParams(second, graph.Kernel{Func: ks.Saxpy, Grid: grid, Block: block, Args: []any{alpha, x, y, int32(256)}})
		_ = e.Launch(s)
		_ = s.Synchronize()
		_ = y.CopyToAt(255, out)
		fmt.Printf("alpha %v: y = %v\n", alpha, out[0])
	}
	// Output:
	// alpha 2: y = 3
	// alpha 3: y = 4
	// alpha 4: y = 5
}

// A scratch buffer that lives only inside the graph: allocated by an
// alloc node, written and read by kernels, freed by a free node. Every
// launch finds it at the same address.
func ExampleAddMemAlloc() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	ks, _ := kernels.Load(dev)
	sum, _ := buffer.New[float32](dev, 256)
	_ = sum.CopyFrom(make([]float32, 256))
	s, _ := stream.New(dev)

	grid, block := gpu.D1(1), gpu.D1(256)
	g := graph.New()
	alloc, tmp, _ := graph.AddMemAlloc[float32](g, dev, 256)
	fill, _ := g.AddKernel(graph.Kernel{Func: ks.FillF32, Grid: grid, Block: block, Args: []any{tmp, float32(2), int32(256)}}, alloc)
	add, _ := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: grid, Block: block, Args: []any{float32(1), tmp, sum, int32(256)}}, fill)
	_, _ = g.AddMemFree(tmp, add)
	e, err := g.Instantiate(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = g.Destroy()
	params, _ := alloc.MemParams()
	for i := 0; i < 3; i++ {
		_ = e.Launch(s)
	}
	_ = s.Synchronize()
	out := make([]float32, 1)
	_ = sum.CopyToAt(255, out)
	fmt.Printf("sum = %v, same address: %v\n", out[0], params.Ptr == uintptr(tmp.Ptr()))
	_ = e.Destroy() // the scratch memory returns to the pool
	// Output:
	// sum = 6, same address: true
}
