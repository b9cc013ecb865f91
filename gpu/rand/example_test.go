package rand_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/rand"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Normals and dice from one generator: the same seed gives these numbers
// on every device.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	g := rand.NewPhilox(2026)
	x, _ := buffer.New[float32](dev, 4)
	defer x.Free()
	dice, _ := buffer.New[uint32](dev, 6)
	defer dice.Free()
	if err := rand.Normal(g, s, x, 0, 1); err != nil {
		fmt.Println(err)
		return
	}
	if err := rand.Range(g, s, dice, 1, 7); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	xs, _ := x.ToSlice()
	ds, _ := dice.ToSlice()
	fmt.Printf("%.4f\n%v\noffset %d\n", xs, ds, g.Offset())
	// Output:
	// [-1.2845 -0.1815 -0.2423 0.8049]
	// [3 5 5 6 6 6]
	// offset 16
}
