// Package mean is a small library that computes on a GPU, with the tests a
// user of hipgo writes for such code: mean_test.go uses gpu/gputest for a
// device per test (parallel tests on two cpu agents, leaks reported) and
// for a benchmark timed by the GPU.
package mean

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// Of returns the mean of the first n elements of x, computed on s.
func Of(s *stream.Stream, x *buffer.Buffer[float32], n int) (float32, error) {
	if n <= 0 {
		return 0, gpu.Errorf(gpu.ErrInvalidValue, "mean", "n=%d: want at least one element", n)
	}
	sum, err := kernels.Sum(s, x, n)
	if err != nil {
		return 0, err
	}
	return sum / float32(n), nil
}

// Center subtracts the mean of x's first n elements from each of them, on
// s, and returns the mean.
func Center(s *stream.Stream, x *buffer.Buffer[float32], n int) (float32, error) {
	m, err := Of(s, x, n)
	if err != nil {
		return 0, err
	}
	ones, err := buffer.New[float32](s.Device(), n)
	if err != nil {
		return 0, err
	}
	defer ones.Free()
	if err := kernels.FillF32(s, ones, 1, n); err != nil {
		return 0, err
	}
	if err := kernels.Saxpy(s, -m, ones, x, n); err != nil {
		return 0, err
	}
	return m, s.Synchronize()
}
