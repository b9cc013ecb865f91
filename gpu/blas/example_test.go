package blas_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Multiply two row-major matrices on a stream, then take a norm.
func Example() {
	dev, err := gpu.Default() // the cpu agent where there is no GPU
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()
	h, _ := blas.New(s)
	defer h.Destroy()

	// A is 2×3, B is 3×2, row-major as gonum writes them.
	a, _ := buffer.FromSlice(dev, []float32{1, 2, 3, 4, 5, 6})
	b, _ := buffer.FromSlice(dev, []float32{7, 8, 9, 10, 11, 12})
	c, _ := buffer.New[float32](dev, 4)
	defer a.Free()
	defer b.Free()
	defer c.Free()

	// C = 1·A·B + 0·C
	if err := blas.Gemm(h, blas.NoTrans, blas.NoTrans, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2); err != nil {
		fmt.Println(err)
		return
	}
	// The norm waits for the stream, so C is ready when it returns.
	norm, _ := blas.Nrm2(h, 4, c, 1)
	out, _ := c.ToSlice()
	fmt.Println(out)
	fmt.Printf("%.3f\n", norm)
	// Output:
	// [58 64 139 154]
	// 224.715
}
