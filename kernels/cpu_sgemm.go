package kernels

import (
	"fmt"
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// SgemmArgs is the kernarg layout of sgemm(int M, int N, int K, float alpha,
// const float *A, const float *B, float beta, float *C).
type SgemmArgs struct {
	M, N, K int32                  // offsets 0, 4, 8
	Alpha   float32                // offset 12
	A, B    rocr.ConstPtr[float32] // offsets 16, 24
	Beta    float32                // offset 32
	C       rocr.Ptr[float32]      // offset 40
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
// on the stack (in B its rows are ldb floats apart, a page or more for
// large N, which L1 and L2 hold badly), then sgemmMicro runs each half row
// of the block over it.
func sgemmBlock(acc *[gemmTile][gemmTile]float32, am, bm []float32, ldb int) {
	k := len(am) / gemmTile
	var bp [gemmKC][gemmTile]float32
	for kb := 0; kb < k; kb += gemmKC {
		l := min(gemmKC, k-kb)
		bs := bm[kb*ldb:]
		for kk := range bp[:l] {
			bp[kk] = *(*[gemmTile]float32)(bs[kk*ldb:])
		}
		for r := range acc {
			arow := am[r*k+kb : r*k+kb+l]
			sgemmMicro(&acc[r], 0, arow, &bp)
			sgemmMicro(&acc[r], 8, arow, &bp)
		}
	}
}

// sgemmMicro adds arow[kk]*bp[kk][j+c] to crow[j+c] for c < 8 and kk <
// len(arow), in the order of kk, holding the 8 sums in registers.
//
// Go on amd64 has neither vectors nor, before GOAMD64=v3, fused
// multiply-adds, so each product is a load, a multiply and an add. This
// shape needs no register copies (the loaded element of B is the one the
// multiply overwrites) and no spills (8 sums, the element of A, a
// temporary). The loop reads arow and bp through unsafe pointers at byte
// offsets ka < 4n and kb < 64n, n <= min(len(arow), gemmKC), which keeps
// every read inside them: with no bounds checks the loop body is one block
// with its exit test, and in one block the scheduler adds each product as
// soon as it is formed (in a body split by checks it forms all the
// products first and spills them).
func sgemmMicro(crow *[gemmTile]float32, j int, arow []float32, bp *[gemmKC][gemmTile]float32) {
	j &= gemmTile - 8
	n := uintptr(min(len(arow), gemmKC))
	if n == 0 {
		return
	}
	pa := unsafe.Pointer(&arow[0])
	pb := unsafe.Pointer(&bp[0][j])
	c0, c1, c2, c3 := crow[j], crow[j+1], crow[j+2], crow[j+3]
	c4, c5, c6, c7 := crow[j+4], crow[j+5], crow[j+6], crow[j+7]
	var x float32
	ka, kb := uintptr(0), uintptr(0)
	for ; ka < n%4*4; ka, kb = ka+4, kb+4*gemmTile {
		x = *(*float32)(unsafe.Add(pa, ka+0))
		c0 += x * *(*float32)(unsafe.Add(pb, kb+0))
		c1 += x * *(*float32)(unsafe.Add(pb, kb+4))
		c2 += x * *(*float32)(unsafe.Add(pb, kb+8))
		c3 += x * *(*float32)(unsafe.Add(pb, kb+12))
		c4 += x * *(*float32)(unsafe.Add(pb, kb+16))
		c5 += x * *(*float32)(unsafe.Add(pb, kb+20))
		c6 += x * *(*float32)(unsafe.Add(pb, kb+24))
		c7 += x * *(*float32)(unsafe.Add(pb, kb+28))
	}
	if ka < n*4 {
		// Four steps of kk a turn; each turn ends with the exit test.
		for {
			x = *(*float32)(unsafe.Add(pa, ka+0))
			c0 += x * *(*float32)(unsafe.Add(pb, kb+0))
			c1 += x * *(*float32)(unsafe.Add(pb, kb+4))
			c2 += x * *(*float32)(unsafe.Add(pb, kb+8))
			c3 += x * *(*float32)(unsafe.Add(pb, kb+12))
			c4 += x * *(*float32)(unsafe.Add(pb, kb+16))
			c5 += x * *(*float32)(unsafe.Add(pb, kb+20))
			c6 += x * *(*float32)(unsafe.Add(pb, kb+24))
			c7 += x * *(*float32)(unsafe.Add(pb, kb+28))
			x = *(*float32)(unsafe.Add(pa, ka+4))
			c0 += x * *(*float32)(unsafe.Add(pb, kb+64))
			c1 += x * *(*float32)(unsafe.Add(pb, kb+68))
			c2 += x * *(*float32)(unsafe.Add(pb, kb+72))
			c3 += x * *(*float32)(unsafe.Add(pb, kb+76))
			c4 += x * *(*float32)(unsafe.Add(pb, kb+80))
			c5 += x * *(*float32)(unsafe.Add(pb, kb+84))
			c6 += x * *(*float32)(unsafe.Add(pb, kb+88))
			c7 += x * *(*float32)(unsafe.Add(pb, kb+92))
			x = *(*float32)(unsafe.Add(pa, ka+8))
			c0 += x * *(*float32)(unsafe.Add(pb, kb+128))
			c1 += x * *(*float32)(unsafe.Add(pb, kb+132))
			c2 += x * *(*float32)(unsafe.Add(pb, kb+136))
			c3 += x * *(*float32)(unsafe.Add(pb, kb+140))
			c4 += x * *(*float32)(unsafe.Add(pb, kb+144))
			c5 += x * *(*float32)(unsafe.Add(pb, kb+148))
			c6 += x * *(*float32)(unsafe.Add(pb, kb+152))
			c7 += x * *(*float32)(unsafe.Add(pb, kb+156))
			x = *(*float32)(unsafe.Add(pa, ka+12))
			c0 += x * *(*float32)(unsafe.Add(pb, kb+192))
			c1 += x * *(*float32)(unsafe.Add(pb, kb+196))
			c2 += x * *(*float32)(unsafe.Add(pb, kb+200))
			c3 += x * *(*float32)(unsafe.Add(pb, kb+204))
			c4 += x * *(*float32)(unsafe.Add(pb, kb+208))
			c5 += x * *(*float32)(unsafe.Add(pb, kb+212))
			c6 += x * *(*float32)(unsafe.Add(pb, kb+216))
			c7 += x * *(*float32)(unsafe.Add(pb, kb+220))
			if ka, kb = ka+16, kb+16*gemmTile; ka >= n*4 {
				break
			}
		}
	}
	crow[j], crow[j+1], crow[j+2], crow[j+3] = c0, c1, c2, c3
	crow[j+4], crow[j+5], crow[j+6], crow[j+7] = c4, c5, c6, c7
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
