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

// Columns of a row-major 4×3 matrix, each transformed as a signal of 4
// points (cuFFT's advanced layout: stride 3 between a column's values,
// distance 1 between columns), from the device's plan cache.
func ExampleNewPlanMany() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer gpu.Shutdown()
	s, _ := stream.New(dev)
	defer s.Destroy()

	cols := &fft.Layout{InEmbed: []int{4}, InStride: 3, InDist: 1, OutEmbed: []int{4}, OutStride: 3, OutDist: 1}
	p, err := fft.Cached(dev, fft.Z2Z, []int{4}, 3, cols)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := buffer.FromSlice(dev, []complex128{
		1, 1, 0,
		0, 1, 1,
		0, 1, 0,
		0, 1, -1,
	})
	defer m.Free()
	if err := fft.C2CExec(p, s, m, m, fft.Forward); err != nil { // in place
		fmt.Println(err)
		return
	}
	_ = s.Synchronize()
	out, _ := m.ToSlice()
	for r := range 4 {
		fmt.Println(real(out[3*r]), real(out[3*r+1]), out[3*r+2])
	}
	// Output:
	// 1 4 (0+0i)
	// 1 0 (0-2i)
	// 1 0 (0+0i)
	// 1 0 (0+2i)
}
