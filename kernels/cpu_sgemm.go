package kernels

import (
	"fmt"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// SgemmArgs is the kernarg layout of sgemm(int M, int N, int K, float alpha,
// const float *A, const float *B, float beta, float *C).
type SgemmArgs struct {
	M, N, K int32             // offsets 0, 4, 8
	Alpha   float32           // offset 12
	A, B    rocr.Ptr[float32] // offsets 16, 24
	Beta    float32           // offset 32
	C       rocr.Ptr[float32] // offset 40
}

const gemmTile = 16 // GEMM_TILE of src/sgemm.hip

// SgemmKernel computes C = alpha*A*B + beta*C for row-major A (MxK), B (KxN)
// and C (MxN). Work-group (bx, by) computes the 16x16 block of C from row
// by*16 and column bx*16; launch it with block (16, 16) and ceil(N/16) x
// ceil(M/16) groups. It declares the HIP kernel's static group memory,
// float As[16][16], Bs[16][16].
//
// A full (16, 16) group, every one that HIP launches, computes its block
// directly from A and B with no staging in group memory: each element's
// products are added in the HIP kernel's order, k = 0, 1, ..., K-1 (the
// zero padding of the last tile adds +0 and changes nothing), so the result
// is the HIP kernel's up to the fused multiply-adds a GPU compiler may use.
// Any other group runs the HIP code literally (sgemmLiteral).
var SgemmKernel = cpu.Define("sgemm", func(g *cpu.Group, a *SgemmArgs) {
	if g.Size != [3]int{gemmTile, gemmTile, 1} || g.Items(0) != gemmTile || g.Items(1) != gemmTile {
		sgemmLiteral(g, a)
		return
	}
	m, n, k := int(a.M), int(a.N), int(a.K)
	r0, c0 := g.ID[1]*gemmTile, g.ID[0]*gemmTile
	r1, c1 := min(r0+gemmTile, m), min(c0+gemmTile, n)
	if r0 >= r1 || c0 >= c1 {
		return
	}
	w := c1 - c0
	cm := a.C.Slice(g, r0*n+c0, (r1-1)*n+c1)
	var am, bm []float32
	if k > 0 {
		am = a.A.Slice(g, r0*k, r1*k)     // rows r0..r1-1 of A
		bm = a.B.Slice(g, c0, (k-1)*n+c1) // columns c0..c1-1 of B, every row
	}
	alpha, beta := a.Alpha, a.Beta
	for r := 0; r < r1-r0; r++ {
		var acc [gemmTile]float32
		accs := acc[:w]
		if k > 0 {
			arow := am[r*k : r*k+k]
			for kk, av := range arow {
				brow := bm[kk*n : kk*n+w]
				for j, bv := range brow {
					accs[j] += av * bv
				}
			}
		}
		crow := cm[r*n : r*n+w]
		for j, v := range accs {
			crow[j] = alpha*v + beta*crow[j]
		}
	}
}, cpu.StaticShared(2*gemmTile*gemmTile*4), cpu.MaxThreads(gemmTile*gemmTile))

// sgemmLiteral is src/sgemm.hip line by line: each __syncthreads() ends a
// loop over the group's work-items, and each work-item's accumulator lives
// in acc between those loops.
func sgemmLiteral(g *cpu.Group, a *SgemmArgs) {
	if g.Size[0] > gemmTile || g.Size[1] > gemmTile {
		// Work-items would index As and Bs out of bounds.
		panic(fmt.Errorf("sgemm: work-group %dx%d exceeds the %dx%d the kernel is written for", g.Size[0], g.Size[1], gemmTile, gemmTile))
	}
	as := cpu.SharedFloat32(g, 0, gemmTile*gemmTile)
	bs := cpu.SharedFloat32(g, gemmTile*gemmTile*4, gemmTile*gemmTile)
	m, n, k := int(a.M), int(a.N), int(a.K)
	nx, ny := g.Items(0), g.Items(1)
	var acc [gemmTile * gemmTile]float32
	for k0 := 0; k0 < k; k0 += gemmTile {
		for ty := 0; ty < ny; ty++ {
			for tx := 0; tx < nx; tx++ {
				row, col := g.ID[1]*gemmTile+ty, g.ID[0]*gemmTile+tx
				ka, kb := k0+tx, k0+ty
				as[ty*gemmTile+tx], bs[ty*gemmTile+tx] = 0, 0
				if row < m && ka < k {
					as[ty*gemmTile+tx] = *a.A.At(g, row*k+ka)
				}
				if kb < k && col < n {
					bs[ty*gemmTile+tx] = *a.B.At(g, kb*n+col)
				}
			}
		}
		// __syncthreads()
		for ty := 0; ty < ny; ty++ {
			for tx := 0; tx < nx; tx++ {
				s := acc[ty*gemmTile+tx]
				for kk := 0; kk < gemmTile; kk++ {
					s += as[ty*gemmTile+kk] * bs[kk*gemmTile+tx]
				}
				acc[ty*gemmTile+tx] = s
			}
		}
		// __syncthreads()
	}
	for ty := 0; ty < ny; ty++ {
		for tx := 0; tx < nx; tx++ {
			row, col := g.ID[1]*gemmTile+ty, g.ID[0]*gemmTile+tx
			if row < m && col < n {
				c := a.C.At(g, row*n+col)
				*c = a.Alpha*acc[ty*gemmTile+tx] + a.Beta**c
			}
		}
	}
}
