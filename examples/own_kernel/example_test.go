package main

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A Go kernel launched like a HIP one: poly3 (poly.go) on the default
// device, through the launcher hipgo-gen wrote.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		panic(err)
	}
	defer gpu.Shutdown()
	x, _ := buffer.FromSlice(dev, []float32{-1, 0, 0.5, 1})
	defer x.Free()
	y, _ := buffer.New[float32](dev, 4)
	defer y.Free()
	s, _ := stream.DefaultStream(dev)
	// y = 2x³ - x² + x/2 + 3, one work-item per element
	if err := LaunchPoly3(s, gpu.D1(1), gpu.D1(64), 0, x, y, 2, -1, 0.5, 3); err != nil {
		panic(err)
	}
	out, err := y.ToSlice()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.3f\n", out)
	// Output: [-0.500 3.000 3.250 4.500]
}
