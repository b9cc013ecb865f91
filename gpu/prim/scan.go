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

// scanRun queues plan p over in: one launch without temporaries, else
// the tiles' sums, their exclusive scan (the spine), and the tiles'
// scans from their offsets. The spine is where a single-pass scan
// (decoupled look-back) will take over once kernels have device-scope
// acquire/release atomics.
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
