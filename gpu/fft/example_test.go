package fft_test

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/fft"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The spectrum of a real signal, one call on a stream.
func Example() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	p, err := fft.NewPlan(dev, fft.R2C, []int{8}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Destroy()
	// cos(2π·2j/8): all its energy at frequency 2.
	x, _ := buffer.FromSlice(dev, []float32{1, 0, -1, 0, 1, 0, -1, 0})
	defer x.Free()
	spectrum, _ := buffer.New[complex64](dev, 8/2+1)
	defer spectrum.Free()
	if err := fft.R2CExec(p, s, x, spectrum); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Synchronize(); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := spectrum.ToSlice()
	for k, v := range out {
		fmt.Printf("%d: %.1f\n", k, real(v))
	}
	// Output:
	// 0: 0.0
	// 1: 0.0
	// 2: 4.0
	// 3: 0.0
	// 4: 0.0
}
