package buffer_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hipMalloc3D and hipMemcpy3D: a 2 x 2 x 2 box from position (1, 1, 1) of
// a 3 x 3 x 3 host volume into a pitched 3-D allocation and back.
func ExampleCopy3D() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	host := make([]int32, 27)
	for i := range host {
		host[i] = int32(i) // element (x, y, z) holds 9z + 3y + x
	}
	box := buffer.Extent{Width: 2, Height: 2, Depth: 2}
	p, err := buffer.NewPitched3D[int32](dev, box)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Free()
	fmt.Println("pitch", p.Pitch(), "slice pitch", p.SlicePitch())
	// The host volume: rows of 3 elements (12 bytes), slices of 3 rows.
	src := buffer.SliceVolume(host, 12, 3).At(1, 1, 1)
	if err := buffer.Copy3D(p.Volume(), src, box); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]int32, 8)
	_ = buffer.Copy3D(buffer.SliceVolume(out, 8, 2), p.Volume(), box)
	fmt.Println(out)
	// Rows past a slice of the allocation say which bound they crossed.
	fmt.Println(buffer.Copy3D(p.Volume().At(0, 1, 0), src, box))
	// Output:
	// pitch 256 slice pitch 512
	// [13 14 16 17 22 23 25 26]
	// memcpy 3d: destination: rows [1, 3) cross the slice height of 2 rows (hipErrorInvalidValue)
}

// hipMallocManaged and hipMemPrefetchAsync: the host writes managed
// memory, a copy on the device reads it without any Transfer, and the
// host reads the memory back once the device work is done.
func ExampleNewManaged() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	m, err := buffer.NewManaged[float32](dev, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Free()
	h, _ := m.Slice()
	copy(h, []float32{1, 2, 3, 4})
	s, err := stream.New(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Destroy()
	_ = stream.Prefetch(s, m, dev) // where the device will use it
	b, _ := buffer.New[float32](dev, 4)
	defer b.Free()
	_ = s.Copy(b, 0, m, 0, 4)
	_ = stream.Fill(s, m, float32(9))
	h, err = m.Slice() // waits for the fill
	fmt.Println(h, err)
	got, _ := b.ToSlice()
	fmt.Println(got)
	// Output:
	// [9 9 9 9] <nil>
	// [1 2 3 4]
}
