package buffer_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// hipMallocPitch and hipMemcpy2D: a 2 x 3 sub-matrix of a 4 x 4 host
// matrix into a pitched allocation and back.
func ExampleCopy2D() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	host := []int32{
		0, 1, 2, 3,
		10, 11, 12, 13,
		20, 21, 22, 23,
		30, 31, 32, 33,
	}
	p, err := buffer.NewPitched[int32](dev, 3, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Free()
	fmt.Println("pitch", p.Pitch())
	// Columns 1..3 of rows 1..2; the host pitch is 4 elements of 4 bytes.
	if err := buffer.Copy2D(p.View(), buffer.SliceView(host, 16).At(1, 1), 3, 2); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]int32, 6)
	_ = buffer.Copy2D(buffer.SliceView(out, 12), p.View(), 3, 2)
	fmt.Println(out)
	// A copy past the allocation's row width says which bound it crossed.
	fmt.Println(buffer.Copy2D(p.View().At(1, 0), buffer.SliceView(host, 16), 3, 2))
	// Output:
	// pitch 256
	// [11 12 13 21 22 23]
	// memcpy 2d: destination: columns [4, 16) bytes cross the row width of 12 bytes (hipErrorInvalidValue)
}
