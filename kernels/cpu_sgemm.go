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
// A block of C that lies wholly inside the matrix goes through sgemmBlock,
// a register-blocked micro-kernel over a packed copy of B's strip; a block
// on C's bottom or right edge through sgemmEdge. Any other group runs the
// HIP code literally (sgemmLiteral).
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
	h, w := r1-r0, c1-c0
	cm := a.C.Slice(g, r0*n+c0, (r1-1)*n+c1)
	var acc [gemmTile][gemmTile]float32
	if k > 0 {
		am := a.A.Slice(g, r0*k, r1*k)     // rows r0..r1-1 of A
		bm := a.B.Slice(g, c0, (k-1)*n+c1) // columns c0..c1-1 of B, every row
		if h == gemmTile && w == gemmTile {
			sgemmBlock(&acc, am, bm, n)
		} else {
			sgemmEdge(&acc, am, bm, h, w, k, n)
		}
	}
	alpha, beta := a.Alpha, a.Beta
	for r := 0; r < h; r++ {
		crow := cm[r*n : r*n+w]
		for j, v := range acc[r][:w] {
			crow[j] = alpha*v + beta*crow[j]
		}
	}
}, cpu.StaticShared(2*gemmTile*gemmTile*4), cpu.MaxThreads(gemmTile*gemmTile))

// gemmKC is how many rows of B's 16-column strip sgemmBlock packs at a
// time: 16 KiB, which stays in L1 with the 16 rows of A it meets.
const gemmKC = 256

// sgemmEdge adds to acc[r][j] the products A[r][kk]*B[kk][j], kk = 0, 1,
// ..., k-1, for the h x w block of C whose rows of A start am (row stride k)
// and whose strip of B starts bm (row stride ldb).
func sgemmEdge(acc *[gemmTile][gemmTile]float32, am, bm []float32, h, w, k, ldb int) {
	for r := 0; r < h; r++ {
		accs := acc[r][:w]
		arow := am[r*k : r*k+k]
		for kk, av := range arow {
			brow := bm[kk*ldb : kk*ldb+w]
			for j, bv := range brow {
				accs[j] += av * bv
			}
		}
	}
}

// sgemmBlock adds to acc[r][j] the products A[r][kk]*B[kk][j], kk = 0, 1,
// ..., k-1 in that order, for a full 16x16 block of C: am is its 16 rows of
// A (16k floats, row stride k), bm its 16-column strip of B (row stride
// ldb). B's strip is copied gemmKC rows at a time into a contiguous buffer
// (its rows in B are a page apart for large N, which L1 and L2 hold badly),
// then sgemmMicro runs 4x2 blocks of C over it.
func sgemmBlock(acc *[gemmTile][gemmTile]float32, am, bm []float32, ldb int) {
	k := len(am) / gemmTile
	var bp [gemmKC][gemmTile]float32
	for kb := 0; kb < k; kb += gemmKC {
		l := min(gemmKC, k-kb)
		bs := bm[kb*ldb:]
		for kk := range bp[:l] {
			bp[kk] = *(*[gemmTile]float32)(bs[kk*ldb:])
		}
		for i := 0; i < gemmTile; i += 4 {
			a0 := am[i*k+kb:][:l]
			a1 := am[(i+1)*k+kb:][:l]
			a2 := am[(i+2)*k+kb:][:l]
			a3 := am[(i+3)*k+kb:][:l]
			for j := 0; j < gemmTile; j += 2 {
				sgemmMicro(acc, i, j, a0, a1, a2, a3, &bp)
			}
		}
	}
}

// sgemmMicro adds a_r[kk]*bp[kk][j+c] to acc[i+r][j+c] for r < 4, c < 2,
// kk < len(a0), in the order of kk, holding the 8 sums in registers.
func sgemmMicro(acc *[gemmTile][gemmTile]float32, i, j int, a0, a1, a2, a3 []float32, bp *[gemmKC][gemmTile]float32) {
	i &= gemmTile - 4
	j &= gemmTile - 2
	n := min(len(a0), gemmKC)
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	c00, c01 := acc[i][j], acc[i][j+1]
	c10, c11 := acc[i+1][j], acc[i+1][j+1]
	c20, c21 := acc[i+2][j], acc[i+2][j+1]
	c30, c31 := acc[i+3][j], acc[i+3][j+1]
	for kk := 0; kk < n; kk++ {
		b := &bp[kk]
		b0, b1 := b[j], b[j+1]
		x0, x1, x2, x3 := a0[kk], a1[kk], a2[kk], a3[kk]
		c00 += x0 * b0
		c01 += x0 * b1
		c10 += x1 * b0
		c11 += x1 * b1
		c20 += x2 * b0
		c21 += x2 * b1
		c30 += x3 * b0
		c31 += x3 * b1
	}
	acc[i][j], acc[i][j+1] = c00, c01
	acc[i+1][j], acc[i+1][j+1] = c10, c11
	acc[i+2][j], acc[i+2][j+1] = c20, c21
	acc[i+3][j], acc[i+3][j+1] = c30, c31
}

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
