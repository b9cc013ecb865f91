package benchmarks

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/kernels"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Matrices: transpose (memory-bound, against a tiled parallel Go loop) and
// sgemm (compute-bound, against gonum's blas32.Gemm). Both row-major.

// squareSide is the side of a square matrix of n elements.
func squareSide(n int) int { return int(math.Sqrt(float64(n))) }

// matrixElements is the transpose sizes: square matrices of 2^12 to 2^24
// elements (64x64 to 4096x4096), and 8192x8192 on a GPU.
func matrixElements(e *env) []int {
	s := []int{1 << 12, 1 << 16, 1 << 20, 1 << 24}
	if large(e) && !testing.Short() {
		s = append(s, 1<<26)
	}
	return s
}

// transposeInput is in[i] = i mod 2^20, exact in float32, so a transposed
// element says where it came from.
func transposeInput(n int) []float32 {
	in := make([]float32, n)
	for i := range in {
		in[i] = float32(i & (1<<20 - 1))
	}
	return in
}

// checkTranspose compares a few elements of out (side x side) with in's.
func checkTranspose(side int, at func(i int) (float32, error)) error {
	for _, rc := range [][2]int{{0, 0}, {0, side - 1}, {side - 1, 0}, {side / 2, side/3 + 1}} {
		r, c := rc[0], rc[1]
		got, err := at(c*side + r) // out[c][r]
		if err != nil {
			return err
		}
		if want := float32((r*side + c) & (1<<20 - 1)); got != want {
			return fmt.Errorf("transpose: out[%d][%d] = %v, want %v", c, r, got, want)
		}
	}
	return nil
}

var transpose = &family{
	name:  "Transpose",
	sizes: matrixElements,
	label: elemLabel,
	small: 1 << 12,
	impls: []impl{
		{"hipgo", func(e *env, n int) (*workload, error) {
			side := squareSide(n)
			in, err := buffer.FromSlice(e.dev, transposeInput(n))
			if err != nil {
				return nil, err
			}
			out, err := buffer.New[float32](e.dev, n)
			if err != nil {
				return nil, errors.Join(err, in.Free())
			}
			return &workload{
				bytes: 8 * int64(n),
				step: func() error {
					if err := kernels.Transpose(e.s, in, out, side, side); err != nil {
						return err
					}
					return e.s.Synchronize()
				},
				check: func() error {
					var v [1]float32
					return checkTranspose(side, func(i int) (float32, error) {
						err := out.CopyToAt(i, v[:])
						return v[0], err
					})
				},
				close: func() error { return errors.Join(in.Free(), out.Free()) },
			}, nil
		}},
		{"goloop", func(_ *env, n int) (*workload, error) {
			side := squareSide(n)
			in, out := transposeInput(n), make([]float32, n)
			const tile = 32
			tiles := (side + tile - 1) / tile
			return &workload{
				bytes: 8 * int64(n),
				step: func() error {
					// Bands of tile rows per goroutine, 32x32 tiles within.
					parallelFor(tiles, func(_, lo, hi int) {
						for r0 := lo * tile; r0 < min(hi*tile, side); r0 += tile {
							for c0 := 0; c0 < side; c0 += tile {
								for r := r0; r < min(r0+tile, side); r++ {
									row := in[r*side : r*side+side]
									for c := c0; c < min(c0+tile, side); c++ {
										out[c*side+r] = row[c]
									}
								}
							}
						}
					})
					return nil
				},
				check: func() error {
					return checkTranspose(side, func(i int) (float32, error) { return out[i], nil })
				},
			}, nil
		}},
	},
}

// BenchmarkTranspose is the transpose of a square float32 matrix of n
// elements (8n bytes moved).
func BenchmarkTranspose(b *testing.B) { runFamily(b, transpose) }

// gemmSizes is the sgemm sizes, m = n = k: 64 to 1024, and 2048 on a GPU
// or with HIPGO_BENCH_LARGE=1.
func gemmSizes(e *env) []int {
	s := []int{64, 128, 256, 512, 1024}
	if large(e) {
		s = append(s, 2048)
	}
	return s
}

// gemmOnes is a matrix of ones: C = A*B is then k everywhere, exactly.
func gemmOnes(n int) []float32 { return hostF32(n*n, 1) }

var sgemm = &family{
	name:  "Sgemm",
	sizes: gemmSizes,
	label: elemLabel,
	small: 64,
	impls: []impl{
		{"hipgo", func(e *env, n int) (*workload, error) {
			bufs, err := deviceF32(e, n*n, 1, 1, 0)
			if err != nil {
				return nil, err
			}
			a, b, c := bufs[0], bufs[1], bufs[2]
			return &workload{
				flops: 2 * float64(n) * float64(n) * float64(n),
				step: func() error {
					if err := kernels.Sgemm(e.s, n, n, n, 1, a, b, 0, c); err != nil {
						return err
					}
					return e.s.Synchronize()
				},
				check: func() error { return checkDevice("sgemm", c, float32(n)) },
				close: func() error { return freeAll(bufs) },
			}, nil
		}},
		{"gonum", func(_ *env, n int) (*workload, error) {
			a := blas32.General{Rows: n, Cols: n, Stride: n, Data: gemmOnes(n)}
			b := blas32.General{Rows: n, Cols: n, Stride: n, Data: gemmOnes(n)}
			c := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
			return &workload{
				flops: 2 * float64(n) * float64(n) * float64(n),
				step: func() error {
					blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
					return nil
				},
				check: func() error { return checkSlice("sgemm", c.Data, float32(n)) },
			}, nil
		}},
	},
}

// BenchmarkSgemm is C = A*B for square float32 matrices of side n
// (m = n = k; 2n^3 FLOPs, reported as GFLOP/s).
func BenchmarkSgemm(b *testing.B) { runFamily(b, sgemm) }
