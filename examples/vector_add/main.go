// Command vector_add is the vector add of the HIP programming guide, in Go:
// allocate a, b and c on the default device, copy the inputs in, launch
// vector_add with a grid of 32 blocks of 32 threads, synchronize, copy the
// result back and check every element.
//
// It runs on the first GPU hipgo finds, or on the cpu agent when there is
// none (HIPGO_DRIVER=cpu|cuda|rocm forces a driver).
package main

import (
	"fmt"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

const n = 1024

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "vector_add:", err)
		os.Exit(1)
	}
}

func run() error {
	defer gpu.Shutdown()
	dev, err := gpu.Default() // hipSetDevice(0)
	if err != nil {
		return err
	}
	fmt.Printf("device: %s\n", dev)

	ha, hb := make([]float32, n), make([]float32, n)
	for i := range ha {
		ha[i], hb[i] = float32(i), float32(2*i)
	}
	a, err := buffer.FromSlice(dev, ha) // hipMalloc + hipMemcpy
	if err != nil {
		return err
	}
	defer a.Free()
	b, err := buffer.FromSlice(dev, hb)
	if err != nil {
		return err
	}
	defer b.Free()
	c, err := buffer.New[float32](dev, n)
	if err != nil {
		return err
	}
	defer c.Free()

	lib, err := kernels.Load(dev) // hipModuleLoad + hipModuleGetFunction
	if err != nil {
		return err
	}
	s, err := stream.DefaultStream(dev)
	if err != nil {
		return err
	}
	// hipLaunchKernelGGL(vector_add, dim3(32), dim3(32), 0, 0, a, b, c, n)
	if err := module.LaunchKernelGGL(lib.VectorAdd, gpu.D1(32), gpu.D1(32), 0, s, a, b, c, int32(n)); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil { // hipDeviceSynchronize
		return err
	}
	hc := make([]float32, n)
	if err := c.CopyTo(hc); err != nil { // hipMemcpy device to host
		return err
	}
	for i := range hc {
		if hc[i] != ha[i]+hb[i] {
			return fmt.Errorf("FAILED: c[%d] = %v, want %v", i, hc[i], ha[i]+hb[i])
		}
	}
	fmt.Printf("vector_add of %d float32: PASSED\n", n)
	return nil
}
