package prim_test

import (
	"fmt"
	"math"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/stream"
)

var negZero = float32(math.Copysign(0, -1))

// A sum, a prefix sum, an argmax and a sort of scores with their ids:
// one call each, queued on a stream.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	scores, _ := buffer.FromSlice(dev, []float32{0.5, -2, 7.25, 3, negZero, 7.25})
	ids, _ := buffer.FromSlice(dev, []int32{10, 11, 12, 13, 14, 15})
	total, _ := buffer.New[float32](dev, 1)
	top, _ := buffer.New[float32](dev, 1)
	best, _ := buffer.New[int64](dev, 1)
	running, _ := buffer.New[float32](dev, 6)
	sorted, _ := buffer.New[float32](dev, 6)
	order, _ := buffer.New[int32](dev, 6)

	_ = prim.Sum(s, scores, total)
	_ = prim.ArgMax(s, scores, top, best)
	_ = prim.InclusiveSum(s, scores, running)
	_ = prim.SortPairs(s, scores, sorted, ids, order, prim.SortOrder{Descending: true})
	if err := s.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	t, _ := total.ToSlice()
	b, _ := best.ToSlice()
	r, _ := running.ToSlice()
	k, _ := sorted.ToSlice()
	v, _ := order.ToSlice()
	fmt.Println("sum:", t[0])
	fmt.Println("argmax:", b[0])
	fmt.Println("running sum:", r)
	fmt.Println("sorted:", k, v)
	// Output:
	// sum: 16
	// argmax: 2
	// running sum: [0.5 -1.5 5.75 8.75 8.75 16]
	// sorted: [7.25 7.25 3 0.5 -0 -2] [12 15 13 10 14 11]
}
