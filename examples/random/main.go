// Command random estimates pi from random points and draws normals, on
// whatever device the machine has, with gpu/rand: one call fills a buffer.
// The same seed gives the same numbers on the cpu agent and on any GPU,
// so its output is the same everywhere.
//
//	go run ./examples/random
package main

import (
	"fmt"
	"math"
	"os"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/rand"
	"github.com/hipgo/hipgo/gpu/stream"
)

func main() {
	dev, err := gpu.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "random:", err)
		os.Exit(1)
	}
	defer gpu.Shutdown()
	res, err := run(dev, 1<<20, 2026)
	if err != nil {
		fmt.Fprintln(os.Stderr, "random:", err)
		os.Exit(1)
	}
	fmt.Printf("pi ≈ %.4f from %d points\nnormals: mean %.4f, standard deviation %.4f\n", res.pi, 1<<20, res.mean, res.std)
}

type result struct {
	pi, mean, std float64
}

// run draws n points in the unit square and n standard normals from a
// generator of seed on dev.
func run(dev *gpu.Device, n int, seed uint64) (result, error) {
	s, err := stream.New(dev)
	if err != nil {
		return result{}, err
	}
	defer s.Destroy()
	g := rand.NewPhilox(seed)
	x, err := buffer.New[float64](dev, n)
	if err != nil {
		return result{}, err
	}
	defer x.Free()
	y, err := buffer.New[float64](dev, n)
	if err != nil {
		return result{}, err
	}
	defer y.Free()
	sum, err := buffer.New[float64](dev, 1)
	if err != nil {
		return result{}, err
	}
	defer sum.Free()

	// pi: the share of points (x, y) with x² + y² < 1, counted on the host.
	if err := rand.Uniform(g, s, x); err != nil {
		return result{}, err
	}
	if err := rand.Uniform(g, s, y); err != nil {
		return result{}, err
	}
	xs, ys := make([]float64, n), make([]float64, n)
	if err := stream.CopyToHost(s, xs, x, 0); err != nil {
		return result{}, err
	}
	if err := stream.CopyToHost(s, ys, y, 0); err != nil {
		return result{}, err
	}

	// Normals, their sum and sum of squares on the device.
	if err := rand.Normal(g, s, x, 0, 1); err != nil {
		return result{}, err
	}
	var moments [2]float64
	if err := prim.Sum(s, x, sum); err != nil {
		return result{}, err
	}
	if err := stream.CopyToHost(s, moments[:1], sum, 0); err != nil {
		return result{}, err
	}
	if err := prim.Transform(s, x, x, prim.Square, 0); err != nil {
		return result{}, err
	}
	if err := prim.Sum(s, x, sum); err != nil {
		return result{}, err
	}
	if err := stream.CopyToHost(s, moments[1:], sum, 0); err != nil {
		return result{}, err
	}
	if err := s.Synchronize(); err != nil {
		return result{}, err
	}
	inside := 0
	for i := range xs {
		if xs[i]*xs[i]+ys[i]*ys[i] < 1 {
			inside++
		}
	}
	mean := moments[0] / float64(n)
	return result{
		pi:   4 * float64(inside) / float64(n),
		mean: mean,
		std:  math.Sqrt(moments[1]/float64(n) - mean*mean),
	}, nil
}
