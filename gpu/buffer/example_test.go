package buffer_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
)

// hipMalloc, hipMemcpy and hipMemset, in Go.
func ExampleBuffer() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	a, err := buffer.FromSlice(dev, []float32{1, 2, 3, 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Free()
	b, _ := buffer.New[float32](dev, 4)
	defer b.Free()
	_ = b.Fill(0.5)
	_ = b.CopyFromAt(2, []float32{7}) // host to device, at element 2
	out, _ := b.ToSlice()
	fmt.Println(out)
	_ = b.CopyFromBuffer(a) // device to device
	out, _ = b.ToSlice()
	fmt.Println(out)
	// Output:
	// [0.5 0.5 7 0.5]
	// [1 2 3 4]
}

// Host memory is visible to the host and to every device.
func ExampleHost() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	h, _ := buffer.NewHost[int32](dev, 3)
	copy(h.Slice(), []int32{1, 2, 3})
	d, _ := buffer.New[int32](dev, 3)
	_ = d.CopyFromBuffer(h)
	out, _ := d.ToSlice()
	fmt.Println(out)
	_ = h.Free()
	_ = d.Free()
	// Output: [1 2 3]
}
