// Command profile runs a few steps of GPU work that a profiler shows as
// named ranges: each step is a range of its own (gpu.StartRange) around a
// copy in, an asynchronous copy and fill, a kernel, a graph launch and a
// copy out, which hipgo puts in ranges named "memcpy host to device",
// "memset async", "vector_add", "graph launch" and so on. Run it under
// Nsight Systems:
//
//	nsys profile --trace=cuda,nvtx -o hipgo-profile ./profile
//	nsys stats --report nvtx_sum hipgo-profile.nsys-rep
//
// or rocprofv3 (rocprofv3 --marker-trace --kernel-trace -- ./profile). It
// runs on the first GPU hipgo finds, or the cpu agent; -steps sets how
// many steps.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

const n = 1 << 20

func main() {
	steps := flag.Int("steps", 5, "steps to run")
	flag.Parse()
	if err := run(*steps); err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
}

func run(steps int) error {
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	if err != nil {
		return err
	}
	fmt.Printf("device: %s\n", dev)
	a, err := buffer.New[float32](dev, n)
	if err != nil {
		return err
	}
	defer a.Free()
	b, err := buffer.New[float32](dev, n)
	if err != nil {
		return err
	}
	defer b.Free()
	c, err := buffer.New[float32](dev, n)
	if err != nil {
		return err
	}
	defer c.Free()
	s, err := stream.New(dev)
	if err != nil {
		return err
	}
	defer s.Destroy()
	ks, err := kernels.Load(dev)
	if err != nil {
		return err
	}
	// The graph: c = 2*a + c, as one launch.
	g := graph.New()
	if _, err := g.AddKernel(graph.Kernel{Func: ks.Saxpy, Grid: gpu.D1(gpu.Blocks(n, 256)), Block: gpu.D1(256), Args: []any{float32(2), a, c, int32(n)}}); err != nil {
		return err
	}
	e, err := g.Instantiate(dev)
	if err != nil {
		return err
	}
	defer e.Destroy()

	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i)
	}
	out := make([]float32, n)
	ctx := context.Background()
	for i := 0; i < steps; i++ {
		r := gpu.StartRange(ctx, fmt.Sprintf("step %d", i))
		if err := a.CopyFrom(host); err != nil {
			return err
		}
		if err := stream.CopyToDevice(s, b, 0, host); err != nil {
			return err
		}
		if err := stream.Fill(s, c, float32(0)); err != nil {
			return err
		}
		if err := kernels.VectorAdd(s, a, b, c, n); err != nil { // c = a + b
			return err
		}
		if err := e.Launch(s); err != nil { // c += 2a
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := c.CopyTo(out); err != nil {
			return err
		}
		r.End()
		if want := float32(4 * (n - 1)); out[n-1] != want {
			return fmt.Errorf("step %d: c[%d] = %v, want %v", i, n-1, out[n-1], want)
		}
	}
	fmt.Printf("%d steps: c[%d] = %v\n", steps, n-1, out[n-1])
	return nil
}
