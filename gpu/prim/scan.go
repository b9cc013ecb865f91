package prim

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// InclusiveSum queues out[i] = in[0] + ... + in[i] on s
// (cub::DeviceScan::InclusiveSum). out may be in.
func InclusiveSum[T Number](s *stream.Stream, in, out buffer.Array[T]) error {
	return scan(s, in, out, false)
}

// ExclusiveSum queues out[0] = 0, out[i] = in[0] + ... + in[i-1]
// (cub::DeviceScan::ExclusiveSum). out may be in.
func ExclusiveSum[T Number](s *stream.Stream, in, out buffer.Array[T]) error {
	return scan(s, in, out, true)
}

// scanPlan is a scan's launch shape: tiles of tile elements, the ones
// of one block consecutive, and the temporary storage it needs.
type scanPlan struct {
	cpu          bool
	block, tile  int
	tiles        int // of the whole input
	tmp          int // elements of each of the two temporaries; 0: one launch
	shared, spin int // dynamic shared bytes of a GPU pass; the spine's tiles per block
}

func planScan(g shape, n, size int) scanPlan {
	if g.cpu {
		blocks, span := g.split(n, 1<<15)
		p := scanPlan{cpu: true, block: 1, tile: span, tiles: blocks}
		if blocks > 1 {
			p.tmp = blocks
		}
		return p
	}
	items := 11 // odd: a work-item's consecutive elements fall in distinct banks
	if size == 8 {
		items = 7
	}
	p := scanPlan{block: blockSize, tile: blockSize * items}
	p.shared = p.tile * size
	p.tiles = ceilDiv(n, p.tile)
	if p.tiles > 4 {
		p.tmp = p.tiles
		p.spin = ceilDiv(p.tiles, p.tile)
	}
	return p
}

func scan[T Number](s *stream.Stream, in, out buffer.Array[T], exclusive bool) (err error) {
	const name = "prim scan"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	n := in.Len()
	if err := checkOut(name, "out", out, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	var zero T
	p := planScan(shapeOf(s), n, int(unsafe.Sizeof(zero)))
	if p.tmp == 0 {
		return scanRun(s, numFor[T](), p, in, out, nil, nil, exclusive)
	}
	if !p.cpu && singlePass {
		return scanSinglePass(s, numFor[T](), in, out, exclusive)
	}
	sums, err := scratch[T](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, sums, &err)
	offs, err := scratch[T](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, offs, &err)
	return scanRun(s, numFor[T](), p, in, out, sums, offs, exclusive)
}

// singlePass makes a GPU's scans of more than a few tiles one launch
// with decoupled look-back (kernels_lookback.go) instead of three
// (reduce, spine, scan); the cpu agent's spans keep the three. A switch
// for the benchmarks, which measure both (BenchmarkScan3Pass,
// BenchmarkScanLookBack). Off until the warp-walked look-back has run on
// a GPU (the cpu agent runs it in the GPU's launch shapes in the tests):
// the three launches are the GPU path the H100 has verified.
var singlePass = false

// The look-back scan's tile: lbBlock work-items of lbItems4 elements of
// 4 bytes or lbItems8 of 8 (odd: a work-item's consecutive elements fall
// in distinct banks of shared memory). Variables so the benchmarks can
// try others (BenchmarkScanLookBack); lbBlock must be a multiple of the
// warp size and at most 1024, the tile's bytes at most 48 KiB.
var (
	lbBlock  = 256
	lbItems4 = 15
	lbItems8 = 7
)

// lbTile is the look-back scan's tile for elements of size bytes.
func lbTile(size int) int {
	if size == 8 {
		return lbBlock * lbItems8
	}
	return lbBlock * lbItems4
}

// scanSinglePass queues the look-back scan over tiles of lbTile.
func scanSinglePass[T Number](s *stream.Stream, l *numLaunchers[T], in, out buffer.Array[T], exclusive bool) (err error) {
	var zero T
	size := int(unsafe.Sizeof(zero))
	tile := lbTile(size)
	tiles := ceilDiv(in.Len(), tile)
	lt, err := newLBTemps[T](s, tiles)
	defer lt.release(s, &err)
	if err != nil {
		return err
	}
	agg, incl := lt.values(out)
	vec := aligned16(in) && aligned16(out)
	return l.scanLB(s, gpu.D1(uint32(tiles)), gpu.D1(uint32(lbBlock)), tile*size, in, out, agg, incl, lt.states, exclusive, vec, tile)
}

// lbTemps is the look-back's temporaries for a launch over tiles of T:
// the tiles' states with the ticket counter after them, and for 8-byte
// types the tiles' aggregates and inclusive prefixes (4-byte ones travel
// in the states).
type lbTemps[T Number] struct {
	states    *buffer.Buffer[uint64]
	agg, incl *buffer.Buffer[T]
}

// newLBTemps takes the temporaries for tiles tiles from s's pool and
// zeroes the states on s; release gives back what it took, error or not.
func newLBTemps[T Number](s *stream.Stream, tiles int) (lt lbTemps[T], err error) {
	var zero T
	if lt.states, err = scratch[uint64](s, tiles+1); err != nil {
		return lt, err
	}
	if err = s.Memset(lt.states, 0); err != nil {
		return lt, err
	}
	if unsafe.Sizeof(zero) != 8 {
		return lt, nil
	}
	if lt.agg, err = scratch[T](s, tiles); err != nil {
		return lt, err
	}
	lt.incl, err = scratch[T](s, tiles)
	return lt, err
}

func (lt lbTemps[T]) release(s *stream.Stream, err *error) {
	free(s, lt.incl, err)
	free(s, lt.agg, err)
	free(s, lt.states, err)
}

// values is the aggregates' and prefixes' arrays a launch takes: for
// 4-byte types out, which the kernels then leave alone.
func (lt lbTemps[T]) values(out buffer.Array[T]) (agg, incl buffer.Array[T]) {
	if lt.agg == nil {
		return out, out
	}
	return lt.agg, lt.incl
}

// segScanSinglePass queues the look-back scan by key over plan p's tiles
// (their head flags fill a tile of 2816 bytes of static shared memory).
func segScanSinglePass[V Number](s *stream.Stream, l *numLaunchers[V], p scanPlan, in buffer.Array[V], heads *buffer.Buffer[uint8], out buffer.Array[V], exclusive bool) (err error) {
	lt, err := newLBTemps[V](s, p.tiles)
	defer lt.release(s, &err)
	if err != nil {
		return err
	}
	agg, incl := lt.values(out)
	vec := aligned16(in) && aligned16(out)
	return l.segScanLB(s, gpu.D1(uint32(p.tiles)), gpu.D1(uint32(p.block)), p.shared, in, heads, out, agg, incl, lt.states, exclusive, vec, p.tile)
}

// scanRun queues plan p over in: one launch without temporaries, else
// the tiles' sums, their exclusive scan (the spine), and the tiles'
// scans from their offsets: the cpu agent's scan, and a GPU's where
// singlePass is off.
func scanRun[T Number](s *stream.Stream, l *numLaunchers[T], p scanPlan, in, out, sums, offs buffer.Array[T], exclusive bool) error {
	n := in.Len()
	if sums == nil {
		if p.cpu {
			return l.scan(s, gpu.D1(1), gpu.D1(1), 0, in, out, out, false, exclusive, n, 1)
		}
		return l.scan(s, gpu.D1(1), gpu.D1(uint32(p.block)), p.shared, in, out, out, false, exclusive, p.tile, p.tiles)
	}
	if err := l.scanUp(s, gpu.D1(uint32(p.tiles)), gpu.D1(uint32(p.block)), 0, in, sums, p.tile, 1); err != nil {
		return err
	}
	var err error
	if p.cpu {
		err = l.scan(s, gpu.D1(1), gpu.D1(1), 0, sums, offs, offs, false, true, p.tiles, 1)
	} else {
		err = l.scan(s, gpu.D1(1), gpu.D1(uint32(p.block)), p.shared, sums, offs, offs, false, true, p.tile, p.spin)
	}
	if err != nil {
		return err
	}
	return l.scan(s, gpu.D1(uint32(p.tiles)), gpu.D1(uint32(p.block)), p.shared, in, out, offs, true, exclusive, p.tile, 1)
}

// InclusiveSumByKey queues out[i] = the sum of in[j] for j <= i in the
// run of equal consecutive keys that holds i
// (cub::DeviceScan::InclusiveSumByKey): a prefix sum that restarts where
// keys[i] != keys[i-1]. Keys compare with ==, floats too (-0 and +0 are
// equal, a NaN equals nothing). out may be in.
func InclusiveSumByKey[K Key, V Number](s *stream.Stream, keys buffer.Array[K], in, out buffer.Array[V]) error {
	return scanByKey(s, keys, in, out, false)
}

// ExclusiveSumByKey is InclusiveSumByKey without in[i] itself: 0 at the
// start of each run (cub::DeviceScan::ExclusiveSumByKey).
func ExclusiveSumByKey[K Key, V Number](s *stream.Stream, keys buffer.Array[K], in, out buffer.Array[V]) error {
	return scanByKey(s, keys, in, out, true)
}

// scanByKey marks the runs' heads (one byte per element, from the pool),
// then runs scan's plan with the segmented operation: on a GPU past four
// tiles one launch with decoupled look-back (segScanSinglePass), else
// the tiles' totals, their inclusive scan (the spine), and the tiles'
// scans from the total of the tiles before them.
func scanByKey[K Key, V Number](s *stream.Stream, keys buffer.Array[K], in, out buffer.Array[V], exclusive bool) (err error) {
	const name = "prim scan by key"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "in", in); err != nil {
		return err
	}
	n := in.Len()
	if err := checkOut(name, "keys", keys, n); err != nil {
		return err
	}
	if err := checkOut(name, "out", out, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	g := shapeOf(s)
	heads, err := scratch[uint8](s, n)
	if err != nil {
		return err
	}
	defer free(s, heads, &err)
	grid, block, span := transformShape(g, n)
	if err = keyFor[K]().heads(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 0, keys, heads, span); err != nil {
		return err
	}
	var zero V
	p := planScan(g, n, int(unsafe.Sizeof(zero)))
	l := numFor[V]()
	if p.tmp == 0 {
		if p.cpu {
			return l.segScan(s, gpu.D1(1), gpu.D1(1), 0, in, heads, out, out, heads, out, segWhole, exclusive, n, 1)
		}
		return l.segScan(s, gpu.D1(1), gpu.D1(uint32(p.block)), p.shared, in, heads, out, out, heads, out, segWhole, exclusive, p.tile, p.tiles)
	}
	if !p.cpu && singlePass {
		return segScanSinglePass(s, l, p, in, heads, out, exclusive)
	}
	sums, err := scratch[V](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, sums, &err)
	spine, err := scratch[V](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, spine, &err)
	sumHeads, err := scratch[uint8](s, p.tmp)
	if err != nil {
		return err
	}
	defer free(s, sumHeads, &err)
	tiles, blk := gpu.D1(uint32(p.tiles)), gpu.D1(uint32(p.block))
	if err = l.segScan(s, tiles, blk, p.shared, in, heads, out, sums, sumHeads, sums, segUp, exclusive, p.tile, 1); err != nil {
		return err
	}
	if p.cpu {
		err = l.segScan(s, gpu.D1(1), gpu.D1(1), 0, sums, sumHeads, spine, sums, sumHeads, sums, segWhole, false, p.tiles, 1)
	} else {
		err = l.segScan(s, gpu.D1(1), blk, p.shared, sums, sumHeads, spine, sums, sumHeads, sums, segWhole, false, p.tile, p.spin)
	}
	if err != nil {
		return err
	}
	return l.segScan(s, tiles, blk, p.shared, in, heads, out, sums, sumHeads, spine, segDown, exclusive, p.tile, 1)
}
