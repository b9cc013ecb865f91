package kernels

//go:generate go run ../cmd/hipgo-gen -go . -o kernels_gen.go -name kernels -var goLibrary

import "github.com/hipgo/hipgo/rocr/kernel"

// The seven kernels of the library, each written once, in Go, per
// work-item as HIP writes them. hipgo-gen translates them to
// gen/kernels.cu and builds gen/kernels.hipfb (gfx90a, gfx942, gfx1030,
// gfx1100) and gen/kernels_sm80.ptx and gen/kernels_sm90.ptx with
// clang-19; the cpu agent runs these functions. Each keeps the C
// signature of the HIP kernel it replaces (a slice whose length a kernel
// never reads is a bare pointer), so C programs and LaunchKernelGGL pass
// the same arguments as before.

// empty does nothing; launch-latency benchmarks dispatch it.
//
//hipgo:kernel
func empty(t kernel.Thread) {}

// vectorAdd is c[i] = a[i] + b[i] for i < n:
// vector_add(const float *a, const float *b, float *c, int n).
//
//hipgo:kernel
func vectorAdd(t kernel.Thread, a, b, c []float32, n int32) {
	if i := t.GlobalX(); i < int(n) {
		c[i] = a[i] + b[i]
	}
}

// saxpy is y[i] = alpha*x[i] + y[i] for i < n:
// saxpy(float alpha, const float *x, float *y, int n).
//
//hipgo:kernel
func saxpy(t kernel.Thread, alpha float32, x, y []float32, n int32) {
	if i := t.GlobalX(); i < int(n) {
		y[i] = alpha*x[i] + y[i]
	}
}

// fillF32 is p[i] = value for i < n: fill_f32(float *p, float value, int n).
//
//hipgo:kernel
func fillF32(t kernel.Thread, p []float32, value float32, n int32) {
	if i := t.GlobalX(); i < int(n) {
		p[i] = value
	}
}

// reduceSum is the first pass of a sum: each work-item sums a
// grid-stride range of in, the block reduces its blockDim.x sums by a
// tree in dynamic shared memory (blockDim.x floats, given at launch), and
// partial[blockIdx.x] gets the block's total. blockDim.x must be a power
// of two no larger than 1024: reduce_sum(const float *in, float *partial,
// int n).
//
//hipgo:kernel
func reduceSum(t kernel.Thread, in, partial []float32, n int32) {
	sdata := kernel.DynamicShared[float32](t)
	tid := t.ThreadIdx().X
	stride := t.GridDim().X * t.BlockDim().X
	var sum float32
	for i := t.GlobalX(); i < int(n); i += stride {
		sum += in[i]
	}
	sdata[tid] = sum
	t.SyncThreads()
	for s := t.BlockDim().X / 2; s > 0; s >>= 1 {
		if tid < s {
			sdata[tid] += sdata[tid+s]
		}
		t.SyncThreads()
	}
	if tid == 0 {
		partial[t.BlockIdx().X] = sdata[0]
	}
}

// transpose writes out (cols x rows) = in (rows x cols)^T, both
// row-major, through a 32x33 shared tile (the padding keeps the column
// reads off one bank): blocks of 32x8 work-items, ceil(cols/32) x
// ceil(rows/32) of them. transpose(const float *in, float *out, int rows,
// int cols).
//
//hipgo:kernel maxthreads=256
func transpose(t kernel.Thread, in, out []float32, rows, cols int32) {
	tile := kernel.Shared[[32][33]float32](t)
	tx, ty := int32(t.ThreadIdx().X), int32(t.ThreadIdx().Y)
	x := int32(t.BlockIdx().X)*32 + tx // column of in
	y := int32(t.BlockIdx().Y)*32 + ty // row of in
	for j := int32(0); j < 32; j += 8 {
		if x < cols && y+j < rows {
			tile[ty+j][tx] = in[int(y+j)*int(cols)+int(x)]
		}
	}
	t.SyncThreads()
	x = int32(t.BlockIdx().Y)*32 + tx // column of out: a row of in
	y = int32(t.BlockIdx().X)*32 + ty // row of out: a column of in
	for j := int32(0); j < 32; j += 8 {
		if x < rows && y+j < cols {
			out[int(y+j)*int(rows)+int(x)] = tile[tx][ty+j]
		}
	}
}

// sgemm is C = alpha*A*B + beta*C for row-major A (m x k), B (k x n) and
// C (m x n), in 16x16 tiles of shared memory: blocks of 16x16
// work-items, ceil(n/16) x ceil(m/16) of them. sgemm(int M, int N, int K,
// float alpha, const float *A, const float *B, float beta, float *C).
//
//hipgo:kernel maxthreads=256
func sgemm(t kernel.Thread, m, n, k int32, alpha float32, a, b []float32, beta float32, c []float32) {
	as := kernel.Shared[[16][16]float32](t)
	bs := kernel.Shared[[16][16]float32](t)
	tx, ty := int32(t.ThreadIdx().X), int32(t.ThreadIdx().Y)
	row := int32(t.BlockIdx().Y)*16 + ty
	col := int32(t.BlockIdx().X)*16 + tx
	var acc float32
	for k0 := int32(0); k0 < k; k0 += 16 {
		ka, kb := k0+tx, k0+ty
		if row < m && ka < k {
			as[ty][tx] = a[int(row)*int(k)+int(ka)]
		} else {
			as[ty][tx] = 0
		}
		if kb < k && col < n {
			bs[ty][tx] = b[int(kb)*int(n)+int(col)]
		} else {
			bs[ty][tx] = 0
		}
		t.SyncThreads()
		for kk := 0; kk < 16; kk++ {
			acc += as[ty][kk] * bs[kk][tx]
		}
		t.SyncThreads()
	}
	if row < m && col < n {
		i := int(row)*int(n) + int(col)
		c[i] = alpha*acc + beta*c[i]
	}
}
