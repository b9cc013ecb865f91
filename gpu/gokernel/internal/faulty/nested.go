package faulty

import "github.com/hipgo/hipgo/rocr/kernel"

// BatchTile is batchedMatMul's tile: blocks of BatchTile x BatchTile.
const BatchTile = 16

// batchedMatMul is c[b] = a[b] x m[b] for batches n x n matrices stored one
// after another, n a multiple of BatchTile: each block computes one tile
// of every product. Barriers stand two loops deep (the batch, the tiles
// of k), which the cpu agent runs by loop fission. The products are
// rounded on their own, so every agent gives the same bits.
//
//hipgo:kernel
func batchedMatMul(t kernel.Thread, c, a, m []float32, n, batches int) {
	as := kernel.Shared[[BatchTile][BatchTile]float32](t)
	bs := kernel.Shared[[BatchTile][BatchTile]float32](t)
	tx, ty := t.ThreadIdx().X, t.ThreadIdx().Y
	row := t.BlockIdx().Y*BatchTile + ty
	col := t.BlockIdx().X*BatchTile + tx
	for b := 0; b < batches; b++ {
		var sum float32
		for k := 0; k < n; k += BatchTile {
			as[ty][tx] = a[b*n*n+row*n+k+tx]
			bs[ty][tx] = m[b*n*n+(k+ty)*n+col]
			t.SyncThreads()
			for j := 0; j < BatchTile; j++ {
				sum += float32(as[ty][j] * bs[j][tx])
			}
			t.SyncThreads()
		}
		c[b*n*n+row*n+col] = sum
	}
}

// batchedMatMulDev is batchedMatMul with each product's tile loop in a
// generic device function, as a library writes it: the cpu agent runs the
// function by its own loop fission, called from the kernel's.
//
//hipgo:kernel
func batchedMatMulDev(t kernel.Thread, c, a, m []float32, n, batches int) {
	as := kernel.Shared[[BatchTile][BatchTile]float32](t)
	bs := kernel.Shared[[BatchTile][BatchTile]float32](t)
	for b := 0; b < batches; b++ {
		matMulTile(t, c[b*n*n:], a[b*n*n:], m[b*n*n:], n, as, bs)
	}
}

// matMulTile computes the block's tile of c = a x m, n x n.
func matMulTile[T float32 | float64](t kernel.Thread, c, a, m []T, n int, as, bs *[BatchTile][BatchTile]T) {
	tx, ty := t.ThreadIdx().X, t.ThreadIdx().Y
	row := t.BlockIdx().Y*BatchTile + ty
	col := t.BlockIdx().X*BatchTile + tx
	var sum T
	for k := 0; k < n; k += BatchTile {
		as[ty][tx] = a[row*n+k+tx]
		bs[ty][tx] = m[(k+ty)*n+col]
		t.SyncThreads()
		for j := 0; j < BatchTile; j++ {
			sum += T(as[ty][j] * bs[j][tx])
		}
		t.SyncThreads()
	}
	c[row*n+col] = sum
}
