package prim

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The one-pass selection's tile shape on a GPU (kernels_select_sweep.go):
// blocks of selectBlock work-items (a multiple of the warp, at most 256),
// each taking selectItems elements (at most selMaxItems, and fewer where
// the tile would not fit sweepShared bytes of shared memory). Variables so
// that a benchmark can try other shapes.
var (
	selectBlock = 256
	selectItems = 16
)

// sweepShared is the most dynamic shared memory a selection's tile takes:
// the 48 KiB a launch gets without asking, less the kernel's static 5 KiB.
const sweepShared = 40 << 10

// selectShape is the one-pass selection's block, elements per work-item
// and tile for elements of size bytes.
func selectShape(size int) (block, items, tile int) {
	block = min(max(32, selectBlock&^31), 256)
	items = max(1, min(selectItems, selMaxItems, sweepShared/(block*size)))
	return block, items, block * items
}

// selectOnePass says whether a selection of n elements on g runs in one
// pass: on a GPU, for more than one tile.
func selectOnePass(g shape, n, size int) bool {
	_, _, tile := selectShape(size)
	return selectOnePassOn && !g.cpu && n > tile
}

// selectOnePassOn makes a GPU's selection of more than one tile the one-pass
// selection. Off until it has run on a GPU (the cpu agent runs it in the
// GPU's launch shapes in the tests): the count, scan and scatter are the
// GPU path the H100 has verified.
var selectOnePassOn = false

// sweepSelect queues the one-pass selection of in (n > one tile) into
// out, and num[0]. With counts (not nil) it is a run-length encoding: pred
// is predUnique and counts gets the runs' lengths.
func sweepSelect[T Number](s *stream.Stream, in buffer.Array[T], flags buffer.Array[uint8], out buffer.Array[T], counts, num buffer.Array[int64], pred int32, a T, partition bool) (err error) {
	n := in.Len()
	size := int(unsafe.Sizeof(*new(T)))
	block, items, tile := selectShape(size)
	tiles := ceilDiv(n, tile)
	states, err := scratch[uint64](s, tiles+1)
	if err != nil {
		return err
	}
	defer free(s, states, &err)
	if flags == nil {
		// The kernel takes a flags buffer whether it reads it or not.
		f, err := scratch[uint8](s, 1)
		if err != nil {
			return err
		}
		defer free(s, f, &err)
		flags = f
	}
	rle := counts != nil
	heads := num // not read without rle
	if rle {
		h, err := scratch[int64](s, 2*tiles)
		if err != nil {
			return err
		}
		defer free(s, h, &err)
		heads = h
	} else {
		counts = num // not written without rle
	}
	if err = s.Memset(states, 0); err != nil {
		return err
	}
	l := selSweepFor[T]()
	if err = l.sweep(s, gpu.D1(uint32(tiles)), gpu.D1(uint32(block)), tile*size, in, flags, out, counts, pred, a, states, heads, num, partition, rle, items); err != nil {
		return err
	}
	if !partition {
		return nil
	}
	grid := min(ceilDiv(n/2, blockSize), 4*shapeOf(s).wave(8))
	return l.reverse(s, gpu.D1(uint32(max(1, grid))), gpu.D1(blockSize), 0, out, num, n)
}
