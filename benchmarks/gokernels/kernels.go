// Package gokernels holds the classic GPU algorithms written as Go
// kernels, in the style of the CUDA programming guide and NVIDIA's
// samples: vector add, tiled matrix multiply, tree reduction, 256-bin
// histogram, tiled transpose and warp-shuffle scan. The benchmarks run
// them beside nvcc-built CUDA versions of the same algorithms
// (benchmarks/peers/gokernels_peer.cu); the tests run them on every agent
// present and compare the results with the cpu agent's.
package gokernels

//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go

import "github.com/hipgo/hipgo/rocr/kernel"

// vectorAdd is c = a + b.
//
//hipgo:kernel
func vectorAdd(t kernel.Thread, a, b, c []float32) {
	i := t.GlobalX()
	if i < len(c) {
		c[i] = a[i] + b[i]
	}
}

// matrixMul16 is NVIDIA's tiled matrixMul with 16x16 blocks: c (hA x wB)
// = a (hA x wA) * b (wA x wB), every dimension a multiple of 16.
//
//hipgo:kernel
func matrixMul16(t kernel.Thread, c, a, b []float32, wA, wB int32) {
	as := kernel.Shared[[16][16]float32](t)
	bs := kernel.Shared[[16][16]float32](t)
	bx, by := int32(t.BlockIdx().X), int32(t.BlockIdx().Y)
	tx, ty := int32(t.ThreadIdx().X), int32(t.ThreadIdx().Y)
	aBegin := wA * 16 * by
	aEnd := aBegin + wA - 1
	bBegin := 16 * bx
	var sum float32
	for ia, ib := aBegin, bBegin; ia <= aEnd; ia, ib = ia+16, ib+16*wB {
		as[ty][tx] = a[ia+wA*ty+tx]
		bs[ty][tx] = b[ib+wB*ty+tx]
		t.SyncThreads()
		for k := 0; k < 16; k++ {
			sum += as[ty][k] * bs[k][tx]
		}
		t.SyncThreads()
	}
	c[wB*16*by+16*bx+wB*ty+tx] = sum
}

// matrixMul32 is matrixMul16 with 32x32 blocks.
//
//hipgo:kernel
func matrixMul32(t kernel.Thread, c, a, b []float32, wA, wB int32) {
	as := kernel.Shared[[32][32]float32](t)
	bs := kernel.Shared[[32][32]float32](t)
	bx, by := int32(t.BlockIdx().X), int32(t.BlockIdx().Y)
	tx, ty := int32(t.ThreadIdx().X), int32(t.ThreadIdx().Y)
	aBegin := wA * 32 * by
	aEnd := aBegin + wA - 1
	bBegin := 32 * bx
	var sum float32
	for ia, ib := aBegin, bBegin; ia <= aEnd; ia, ib = ia+32, ib+32*wB {
		as[ty][tx] = a[ia+wA*ty+tx]
		bs[ty][tx] = b[ib+wB*ty+tx]
		t.SyncThreads()
		for k := 0; k < 32; k++ {
			sum += as[ty][k] * bs[k][tx]
		}
		t.SyncThreads()
	}
	c[wB*32*by+32*bx+wB*ty+tx] = sum
}

// reduceBlock is NVIDIA's reduce6 for any block size of at least twice
// the warp: each work-item sums a grid-stride range two elements at a
// time, the block reduces its sums by a tree in sdata, dynamic shared
// memory of one T per work-item, down to two warps' worth, and the first warp
// finishes with shuffles. out[blockIdx.x] gets the block's sum.
func reduceBlock[T kernel.Shuffleable](t kernel.Thread, in, out, sdata []T) {
	tid := t.ThreadIdx().X
	bs := t.BlockDim().X
	ws := t.WarpSize()
	var sum T
	for i := t.BlockIdx().X*bs*2 + tid; i < len(in); i += bs * 2 * t.GridDim().X {
		sum += in[i]
		if i+bs < len(in) {
			sum += in[i+bs]
		}
	}
	sdata[tid] = sum
	t.SyncThreads()
	for s := bs / 2; s >= 2*ws; s >>= 1 {
		if tid < s {
			sum += sdata[tid+s]
			sdata[tid] = sum
		}
		t.SyncThreads()
	}
	if tid < ws {
		sum += sdata[tid+ws]
		for off := ws / 2; off > 0; off >>= 1 {
			sum += kernel.ShflDown(t, sum, off)
		}
		if tid == 0 {
			out[t.BlockIdx().X] = sum
		}
	}
}

// reduceF32 is reduceBlock over float32.
//
//hipgo:kernel
func reduceF32(t kernel.Thread, in, out []float32) {
	reduceBlock(t, in, out, kernel.DynamicShared[float32](t))
}

// reduceI32 is reduceBlock over int32.
//
//hipgo:kernel
func reduceI32(t kernel.Thread, in, out []int32) {
	reduceBlock(t, in, out, kernel.DynamicShared[int32](t))
}

// histogram256 counts the bytes of data into 256 bins: each block counts
// into its own bins in shared memory with shared atomics, then adds them
// to bins with global atomics.
//
//hipgo:kernel
func histogram256(t kernel.Thread, data []uint8, bins []uint32) {
	local := kernel.Shared[[256]uint32](t)
	for i := t.ThreadIdx().X; i < 256; i += t.BlockDim().X {
		local[i] = 0
	}
	t.SyncThreads()
	for i := t.GlobalX(); i < len(data); i += t.BlockDim().X * t.GridDim().X {
		kernel.AtomicAdd(&local[data[i]], 1)
	}
	t.SyncThreads()
	for i := t.ThreadIdx().X; i < 256; i += t.BlockDim().X {
		if v := local[i]; v != 0 {
			kernel.AtomicAdd(&bins[i], v)
		}
	}
}

// transpose is NVIDIA's transposeNoBankConflicts: out (cols x rows) =
// in (rows x cols)^T through a 32x33 shared tile, blocks of 32x8
// work-items, each moving four elements.
//
//hipgo:kernel
func transpose(t kernel.Thread, out, in []float32, rows, cols int32) {
	tile := kernel.Shared[[32][33]float32](t)
	x := int32(t.BlockIdx().X)*32 + int32(t.ThreadIdx().X)
	y := int32(t.BlockIdx().Y)*32 + int32(t.ThreadIdx().Y)
	for j := int32(0); j < 32; j += 8 {
		if x < cols && y+j < rows {
			tile[int32(t.ThreadIdx().Y)+j][t.ThreadIdx().X] = in[(y+j)*cols+x]
		}
	}
	t.SyncThreads()
	x = int32(t.BlockIdx().Y)*32 + int32(t.ThreadIdx().X)
	y = int32(t.BlockIdx().X)*32 + int32(t.ThreadIdx().Y)
	for j := int32(0); j < 32; j += 8 {
		if x < rows && y+j < cols {
			out[(y+j)*rows+x] = tile[t.ThreadIdx().X][int32(t.ThreadIdx().Y)+j]
		}
	}
}

// scanBlock is NVIDIA's shfl_scan: an inclusive scan of each block's
// elements, each warp scanning with shuffles up, the warps' sums scanned
// by the first warp through shared memory. sums[blockIdx.x] gets the
// block's total, for uniformAdd.
//
//hipgo:kernel
func scanBlock(t kernel.Thread, data, sums []int32) {
	warpSums := kernel.Shared[[32]int32](t)
	i := t.GlobalX()
	tid := t.ThreadIdx().X
	lane, warp := t.Lane(), tid/t.WarpSize()
	var v int32
	if i < len(data) {
		v = data[i]
	}
	for d := 1; d < t.WarpSize(); d <<= 1 {
		n := kernel.ShflUp(t, v, d)
		if lane >= d {
			v += n
		}
	}
	if lane == t.WarpSize()-1 {
		warpSums[warp] = v
	}
	t.SyncThreads()
	if warp == 0 {
		nw := t.BlockDim().X / t.WarpSize()
		var s int32
		if lane < nw {
			s = warpSums[lane]
		}
		for d := 1; d < t.WarpSize(); d <<= 1 {
			n := kernel.ShflUp(t, s, d)
			if lane >= d {
				s += n
			}
		}
		if lane < nw {
			warpSums[lane] = s
		}
	}
	t.SyncThreads()
	if warp > 0 {
		v += warpSums[warp-1]
	}
	if i < len(data) {
		data[i] = v
	}
	if tid == t.BlockDim().X-1 {
		sums[t.BlockIdx().X] = v
	}
}

// uniformAdd adds the scanned sum of the blocks before each block to its
// elements: data[i] += sums[blockIdx.x-1].
//
//hipgo:kernel
func uniformAdd(t kernel.Thread, data, sums []int32) {
	i := t.GlobalX()
	if b := t.BlockIdx().X; b > 0 && i < len(data) {
		data[i] += sums[b-1]
	}
}
