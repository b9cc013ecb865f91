package gokernel_test

import (
	"fmt"
	"math"
	"testing"

	"golang.org/x/exp/constraints"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hornerRun evaluates 2x^3 + x^2 - 0.5x + 3 - 1/3 at n points of [-1, 1]
// with launch, on dev.
func hornerRun[T constraints.Float](dev *gpu.Device, n int, launch func(s *stream.Stream, x, y *buffer.Buffer[T]) error) ([]T, error) {
	in := make([]T, n)
	for i := range in {
		in[i] = T(-1 + 2*float64(i)/float64(n-1))
	}
	x, err := buffer.FromSlice(dev, in)
	if err != nil {
		return nil, err
	}
	defer x.Free()
	y, err := buffer.New[T](dev, n)
	if err != nil {
		return nil, err
	}
	defer y.Free()
	s, err := stream.New(dev)
	if err != nil {
		return nil, err
	}
	defer s.Destroy()
	if err := launch(s, x, y); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return y.ToSlice()
}

// Go's float32(x*y) rounds the product, and the spec forbids fusing it
// into an FMA: written so, a kernel gives the cpu agent's bits exactly on
// every GPU, where the plain form (examples/own_kernel) differs in the
// last places.
func TestRoundedProductsExact(t *testing.T) {
	const n = 4097
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		return hornerRun(dev, n, func(s *stream.Stream, x, y *buffer.Buffer[float32]) error {
			return faulty.LaunchHorner(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, x, y, 2, 1, -0.5, 3-1.0/3)
		})
	})
	gputest.Differential(t, func(dev *gpu.Device) ([]float64, error) {
		return hornerRun(dev, n, func(s *stream.Stream, x, y *buffer.Buffer[float64]) error {
			return faulty.LaunchHorner64(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, x, y, 2, 1, -0.5, 3-1.0/3)
		})
	})
}

// A device function's two results reach two slices, the same on every
// agent (Go's truncated division and remainder, negative operands too).
func TestSeveralResults(t *testing.T) {
	const n = 1000
	gputest.Differential(t, func(dev *gpu.Device) ([]int32, error) {
		in := make([]int32, n)
		for i := range in {
			in[i] = int32(i*37 - 18000)
		}
		x, err := buffer.FromSlice(dev, in)
		if err != nil {
			return nil, err
		}
		defer x.Free()
		q, err := buffer.New[int32](dev, n)
		if err != nil {
			return nil, err
		}
		defer q.Free()
		r, err := buffer.New[int32](dev, n)
		if err != nil {
			return nil, err
		}
		defer r.Free()
		s, err := stream.New(dev)
		if err != nil {
			return nil, err
		}
		defer s.Destroy()
		if err := faulty.LaunchQuotients(s, gpu.D1(gpu.Blocks(n, 128)), gpu.D1(128), 0, x, q, r, -7); err != nil {
			return nil, err
		}
		if err := s.Synchronize(); err != nil {
			return nil, err
		}
		qs, err := q.ToSlice()
		if err != nil {
			return nil, err
		}
		rs, err := r.ToSlice()
		if err != nil {
			return nil, err
		}
		for i, v := range in {
			if qs[i] != v/-7 || rs[i] != v%-7 {
				return nil, fmt.Errorf("on %s: [%d] %d/-7 gave %d rem %d", dev, i, v, qs[i], rs[i])
			}
		}
		return append(qs, rs...), nil
	})
}

// A value type's methods run as device functions, the same on every agent.
func TestMethods(t *testing.T) {
	const n = 777
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i)/64-6, 3-float32(i)/100
		}
		x, err := buffer.FromSlice(dev, xs)
		if err != nil {
			return nil, err
		}
		defer x.Free()
		y, err := buffer.FromSlice(dev, ys)
		if err != nil {
			return nil, err
		}
		defer y.Free()
		out, err := buffer.New[float32](dev, n)
		if err != nil {
			return nil, err
		}
		defer out.Free()
		s, err := stream.New(dev)
		if err != nil {
			return nil, err
		}
		defer s.Destroy()
		if err := faulty.LaunchPointNorms(s, gpu.D1(gpu.Blocks(n, 128)), gpu.D1(128), 0, x, y, out); err != nil {
			return nil, err
		}
		if err := s.Synchronize(); err != nil {
			return nil, err
		}
		got, err := out.ToSlice()
		if err != nil {
			return nil, err
		}
		for i := range got {
			if want := float32(math.Abs(float64(xs[i]+1))) + float32(math.Abs(float64(ys[i]-2))); got[i] != want {
				return nil, fmt.Errorf("on %s: [%d] = %v, want %v", dev, i, got[i], want)
			}
		}
		return got, nil
	})
}

// A grid-stride loop takes Go's trips on every agent, where its step
// makes i wrap past the int's maximum too.
func TestStridedLoops(t *testing.T) {
	const max, min = math.MaxInt64, math.MinInt64
	cases := [][3]int64{
		{0, 10, 3}, {-10, 10, 7}, {5, 3, 1}, {7, 7, 2}, {0, 1 << 40, 1 << 38},
		{max - 5, max, 4},       // i+step passes the maximum: wraps and goes on
		{max - 5, max - 4, 8},   // one trip; the step would wrap after it
		{min, max, max},         // wraps after two trips
		{0, 10, -1}, {0, 10, 0}, // never reaches the bound
		{min, min + 9, 2}, {-3, max - 2, max / 2},
	}
	var flat []int64
	want := make([]int64, 0, 2*len(cases))
	for _, c := range cases {
		flat = append(flat, c[0], c[1], c[2])
		trips, last := int64(0), int64(-1)
		for i := c[0]; i < c[1]; i += c[2] {
			trips++
			last = i
			if trips == 1000 {
				break
			}
		}
		want = append(want, trips, last)
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]int64, error) {
		c, err := buffer.FromSlice(dev, flat)
		if err != nil {
			return nil, err
		}
		defer c.Free()
		out, err := buffer.New[int64](dev, 2*len(cases))
		if err != nil {
			return nil, err
		}
		defer out.Free()
		s, err := stream.New(dev)
		if err != nil {
			return nil, err
		}
		defer s.Destroy()
		if err := faulty.LaunchStrided(s, gpu.D1(1), gpu.D1(64), 0, c, out); err != nil {
			return nil, err
		}
		if err := s.Synchronize(); err != nil {
			return nil, err
		}
		got, err := out.ToSlice()
		if err != nil {
			return nil, err
		}
		for i := range cases {
			if got[2*i] != want[2*i] || got[2*i+1] != want[2*i+1] {
				return nil, fmt.Errorf("on %s: case %v took %d trips, last %d; Go takes %d, last %d", dev, cases[i], got[2*i], got[2*i+1], want[2*i], want[2*i+1])
			}
		}
		return got, nil
	})
}
