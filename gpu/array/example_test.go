package array_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/array"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A mask from a comparison picks between an array and a scalar: the
// negative readings are set to 0 (cupy.where(x > 0, x, 0)), and the
// mask counts them.
func ExampleWhereScalar() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	x, _ := array.FromSlice(s, []float32{1.5, -2, 3, -0.5, 0, 4})
	defer x.Free()
	pos, _ := array.GreaterScalar(x, 0)
	defer pos.Free()
	relu, err := array.WhereScalar(pos, x, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer relu.Free()
	n, _ := array.CountNonzero(pos)
	defer n.Free()

	m, _ := pos.ToSlice()
	r, _ := relu.ToSlice()
	c, _ := n.Item()
	fmt.Println(m, r, c)
	// Output: [1 0 1 0 0 1] [1.5 0 3 0 0 4] 3
}

// A batch of two 2×3 matrices times one 3×2 matrix (cupy.matmul, a @
// b): one strided-batched GEMM through gpu/blas, b used by both.
func ExampleMatMul() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	a, _ := array.FromSlice(s, []float64{1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0}, 2, 2, 3)
	defer a.Free()
	b, _ := array.FromSlice(s, []float64{1, 0, 0, 1, 1, 1}, 3, 2)
	defer b.Free()
	c, err := array.MatMul(a, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Free()
	// Converted to int32 on the device (AsType) before the copy.
	i, _ := array.AsType[int32](c)
	defer i.Free()
	h, _ := i.ToSlice()
	fmt.Println(c.Shape(), h)
	// Output: [2 2 2] [4 5 10 11 1 0 0 1]
}
