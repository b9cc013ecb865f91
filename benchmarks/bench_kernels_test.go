package benchmarks

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/kernels"
	"gonum.org/v1/gonum/floats"
)

// The memory-bound kernels, each launched and synchronized per step, against
// a plain parallel Go loop over Go slices (parallelFor: GOMAXPROCS
// goroutines, contiguous chunks) doing the same arithmetic.

// deviceF32 allocates buffers of n float32 on the device, each set to the
// matching value with the fill_f32 kernel.
func deviceF32(e *env, n int, values ...float32) ([]*buffer.Buffer[float32], error) {
	var bufs []*buffer.Buffer[float32]
	free := func() error {
		var errs []error
		for _, b := range bufs {
			errs = append(errs, b.Free())
		}
		return errors.Join(errs...)
	}
	for _, v := range values {
		b, err := buffer.New[float32](e.dev, n)
		if err != nil {
			return nil, errors.Join(err, free())
		}
		bufs = append(bufs, b)
		if err := kernels.FillF32(e.s, b, v, n); err != nil {
			return nil, errors.Join(err, free())
		}
	}
	if err := e.s.Synchronize(); err != nil {
		return nil, errors.Join(err, free())
	}
	return bufs, nil
}

func freeAll(bufs []*buffer.Buffer[float32]) error {
	var errs []error
	for _, b := range bufs {
		errs = append(errs, b.Free())
	}
	return errors.Join(errs...)
}

// checkDevice compares a few elements of b (first, last, middle) with want.
func checkDevice(op string, b *buffer.Buffer[float32], want float32) error {
	var got [1]float32
	for _, i := range []int{0, b.Len() / 2, b.Len() - 1} {
		if err := b.CopyToAt(i, got[:]); err != nil {
			return err
		}
		if got[0] != want {
			return fmt.Errorf("%s: element %d = %v, want %v", op, i, got[0], want)
		}
	}
	return nil
}

func checkSlice(op string, s []float32, want float32) error {
	for _, i := range []int{0, len(s) / 2, len(s) - 1} {
		if s[i] != want {
			return fmt.Errorf("%s: element %d = %v, want %v", op, i, s[i], want)
		}
	}
	return nil
}

func hostF32(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

var vectorAdd = &family{
	name:  "VectorAdd",
	sizes: elements,
	label: elemLabel,
	small: 1 << 10,
	impls: []impl{
		{"hipgo", func(e *env, n int) (*workload, error) {
			bufs, err := deviceF32(e, n, 1, 2, 0)
			if err != nil {
				return nil, err
			}
			a, b, c := bufs[0], bufs[1], bufs[2]
			return &workload{
				bytes: 12 * int64(n),
				step: func() error {
					if err := kernels.VectorAdd(e.s, a, b, c, n); err != nil {
						return err
					}
					return e.s.Synchronize()
				},
				check: func() error { return checkDevice("vector_add", c, 3) },
				close: func() error { return freeAll(bufs) },
			}, nil
		}},
		{"goloop", func(_ *env, n int) (*workload, error) {
			a, b, c := hostF32(n, 1), hostF32(n, 2), make([]float32, n)
			return &workload{
				bytes: 12 * int64(n),
				step: func() error {
					parallelFor(n, func(_, lo, hi int) {
						c := c[lo:hi]
						a, b := a[lo:hi][:len(c)], b[lo:hi][:len(c)]
						for i := range c {
							c[i] = a[i] + b[i]
						}
					})
					return nil
				},
				check: func() error { return checkSlice("vector_add", c, 3) },
			}, nil
		}},
	},
}

// BenchmarkVectorAdd is c = a + b over n float32 (12n bytes moved).
func BenchmarkVectorAdd(b *testing.B) { runFamily(b, vectorAdd) }

// saxpyAlpha keeps y exact for as long as a benchmark runs: from 1, y grows
// by 1/1024 a step, exact in float32 for millions of steps. Every element
// takes the same steps, so the check compares them with each other.
const saxpyAlpha = 1.0 / 1024

var saxpy = &family{
	name:  "Saxpy",
	sizes: elements,
	label: elemLabel,
	small: 1 << 10,
	impls: []impl{
		{"hipgo", func(e *env, n int) (*workload, error) {
			bufs, err := deviceF32(e, n, 1, 1)
			if err != nil {
				return nil, err
			}
			x, y := bufs[0], bufs[1]
			return &workload{
				bytes: 12 * int64(n),
				step: func() error {
					if err := kernels.Saxpy(e.s, saxpyAlpha, x, y, n); err != nil {
						return err
					}
					return e.s.Synchronize()
				},
				check: func() error {
					var first [1]float32
					if err := y.CopyToAt(0, first[:]); err != nil {
						return err
					}
					if first[0] <= 1 {
						return fmt.Errorf("saxpy: y[0] = %v, not updated", first[0])
					}
					return checkDevice("saxpy", y, first[0])
				},
				close: func() error { return freeAll(bufs) },
			}, nil
		}},
		{"goloop", func(_ *env, n int) (*workload, error) {
			x, y := hostF32(n, 1), hostF32(n, 1)
			return &workload{
				bytes: 12 * int64(n),
				step: func() error {
					parallelFor(n, func(_, lo, hi int) {
						y := y[lo:hi]
						x := x[lo:hi][:len(y)]
						for i := range y {
							y[i] = saxpyAlpha*x[i] + y[i]
						}
					})
					return nil
				},
				check: func() error {
					if y[0] <= 1 {
						return fmt.Errorf("saxpy: y[0] = %v, not updated", y[0])
					}
					return checkSlice("saxpy", y, y[0])
				},
			}, nil
		}},
	},
}

// BenchmarkSaxpy is y = alpha*x + y over n float32 (12n bytes moved).
func BenchmarkSaxpy(b *testing.B) { runFamily(b, saxpy) }

var reduceSum = &family{
	name:  "ReduceSum",
	sizes: elements,
	label: elemLabel,
	small: 1 << 10,
	impls: []impl{
		{"hipgo", newReduceHipgo},
		{"goloop", func(_ *env, n int) (*workload, error) {
			// One float64 accumulator per goroutine: a float32 one stops
			// counting at 2^24.
			in := hostF32(n, 1)
			var sum float64
			partial := make([]float64, runtime.GOMAXPROCS(0))
			return &workload{
				bytes: 4 * int64(n),
				step: func() error {
					clear(partial)
					parallelFor(n, func(p, lo, hi int) {
						var s float64
						for _, v := range in[lo:hi] {
							s += float64(v)
						}
						partial[p] = s
					})
					sum = 0
					for _, s := range partial {
						sum += s
					}
					return nil
				},
				check: func() error { return checkSum(sum, n) },
			}, nil
		}},
		{"gonum", func(_ *env, n int) (*workload, error) {
			// gonum has no float32 sum: floats.Sum over a float64 copy
			// (8n bytes read, on one goroutine).
			in := make([]float64, n)
			for i := range in {
				in[i] = 1
			}
			var sum float64
			return &workload{
				bytes: 8 * int64(n),
				step:  func() error { sum = floats.Sum(in); return nil },
				check: func() error { return checkSum(sum, n) },
			}, nil
		}},
	},
}

// BenchmarkReduceSum is the sum of n float32: the reduce_sum kernel (one
// partial per block, at most 1024 blocks), synchronize, the partials copied
// back and added on the host, as kernels.Sum does but with its buffers
// allocated once.
func BenchmarkReduceSum(b *testing.B) { runFamily(b, reduceSum) }

func newReduceHipgo(e *env, n int) (*workload, error) {
	blocks := min(max(int((n+kernels.ReduceBlock-1)/kernels.ReduceBlock), 1), 1024)
	bufs, err := deviceF32(e, n, 1)
	if err != nil {
		return nil, err
	}
	partial, err := buffer.New[float32](e.dev, blocks)
	if err != nil {
		return nil, errors.Join(err, freeAll(bufs))
	}
	host := make([]float32, blocks)
	var sum float64
	return &workload{
		bytes: 4 * int64(n),
		step: func() error {
			if err := kernels.ReduceSum(e.s, bufs[0], partial, n); err != nil {
				return err
			}
			if err := e.s.Synchronize(); err != nil {
				return err
			}
			if err := partial.CopyTo(host); err != nil {
				return err
			}
			sum = 0
			for _, v := range host {
				sum += float64(v)
			}
			return nil
		},
		check: func() error { return checkSum(sum, n) },
		close: func() error { return errors.Join(freeAll(bufs), partial.Free()) },
	}, nil
}

func checkSum(sum float64, n int) error {
	if sum != float64(n) {
		return fmt.Errorf("reduce_sum: sum of %d ones = %v", n, sum)
	}
	return nil
}
