package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hipgo/hipgo/rocr"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// TestSgemmBlocked runs sgemm on shapes that reach every path of the fast
// kernel: full blocks with k below, at and above gemmKC and with each k
// mod 4 (sgemmMicro's tail), blocks on the bottom and right edges, and k =
// 0. The result must equal the literal translation's bit for bit, and
// gonum's within rounding.
func TestSgemmBlocked(t *testing.T) {
	e := newCPUEnv(t)
	lit := loadTestKernels(t, e)
	for _, s := range []struct{ m, n, k int }{
		{16, 16, 1}, {16, 16, 4}, {32, 48, 7}, {16, 16, 255}, {48, 32, 256}, {33, 47, 257},
		{32, 32, 511}, {16, 64, 514}, {64, 16, 1027}, {20, 35, 0}, {5, 3, 9},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d", s.m, s.n, s.k), func(t *testing.T) {
			const alpha, beta, pad = float32(0.75), float32(1.25), 16
			r := rand.New(rand.NewPCG(uint64(s.m*s.n), uint64(s.k)))
			a, A := e.buf(max(1, s.m*s.k))
			b, B := e.buf(max(1, s.k*s.n))
			cpuRandFill(r, A)
			cpuRandFill(r, B)
			C0 := make([]float32, s.m*s.n)
			cpuRandFill(r, C0)
			want := blas32.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: append([]float32(nil), C0...)}
			if s.k > 0 {
				blas32.Gemm(blas.NoTrans, blas.NoTrans, alpha,
					blas32.General{Rows: s.m, Cols: s.k, Stride: s.k, Data: A[:s.m*s.k]},
					blas32.General{Rows: s.k, Cols: s.n, Stride: s.n, Data: B[:s.k*s.n]}, beta, want)
			} else {
				for i := range want.Data {
					want.Data[i] *= beta
				}
			}
			l := cpuLaunch{grid: [3]uint32{cpuBlocks(s.n, 16), cpuBlocks(s.m, 16), 1}, block: [3]uint32{16, 16, 1}}
			var results [][]float32
			for _, kern := range []struct {
				env  *cpuEnv
				name string
			}{{e, "sgemm"}, {lit, "kernels_test_sgemm_literal"}} {
				c, C := e.buf(s.m*s.n + pad)
				copy(C, C0)
				for i := s.m * s.n; i < len(C); i++ {
					C[i] = cpuSentinel
				}
				args := &SgemmArgs{int32(s.m), int32(s.n), int32(s.k), alpha, rocr.ConstPtr[float32](a), rocr.ConstPtr[float32](b), beta, c}
				cpuMustRun(kern.env, kern.name, args, l)
				cpuCheckClose(t, kern.name, C[:s.m*s.n], cpuF64(want.Data), 1e-4)
				cpuCheckUntouched(t, kern.name, C[s.m*s.n:])
				results = append(results, C[:s.m*s.n])
			}
			for i := range results[0] {
				if math.Float32bits(results[0][i]) != math.Float32bits(results[1][i]) {
					t.Fatalf("C[%d]: blocked %v, literal %v", i, results[0][i], results[1][i])
				}
			}
		})
	}
}

// BenchmarkSgemmBlock is sgemmBlock alone: 16x16 blocks of C with k = 1024
// from a 1024x1024 B, the blocks of one row of tiles in turn.
func BenchmarkSgemmBlock(b *testing.B) {
	const k, ldb = 1024, 1024
	r := rand.New(rand.NewPCG(1, 2))
	am := make([]float32, gemmTile*k)
	bm := make([]float32, k*ldb)
	cpuRandFill(r, am)
	cpuRandFill(r, bm)
	var acc [gemmTile][gemmTile]float32
	for i := 0; b.Loop(); i++ {
		c0 := i * gemmTile % ldb
		sgemmBlock(&acc, am, bm[c0:], ldb)
	}
	b.ReportMetric(2*gemmTile*gemmTile*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
