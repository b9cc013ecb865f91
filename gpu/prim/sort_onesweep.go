package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// onesweepSort is the sort on a GPU: one histogram of every pass's
// digits, then one launch per 8-bit digit (kernels_sort.go).
func onesweepSort[K Key, V Value](s *stream.Stream, g shape, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], desc bool, begin, end int, pairs bool) (err error) {
	n := keysIn.Len()
	passes := ceilDiv(end-begin, radixBits)
	sl := sweepFor[K]()
	items := sl.items
	var pl sweepPairsLaunch[K, V]
	if pairs {
		pl, items = sweepPairsFor[K, V]()
	}
	tiles := ceilDiv(n, sweepBlock*items)
	// meta: each pass's 256 digit counts, then each pass's ticket counter.
	meta, err := scratch[uint32](s, 8*256+8)
	if err != nil {
		return err
	}
	defer free(s, meta, &err)
	states, err := scratch[uint32](s, 2*256*tiles)
	if err != nil {
		return err
	}
	defer free(s, states, &err)
	tmpK, err := scratch[K](s, n)
	if err != nil {
		return err
	}
	defer free(s, tmpK, &err)
	var tmpV *buffer.Buffer[V]
	if pairs {
		if tmpV, err = scratch[V](s, n); err != nil {
			return err
		}
		defer free(s, tmpV, &err)
	}
	if err = s.Memset(meta, 0); err != nil {
		return err
	}
	if err = s.Memset(states, 0); err != nil {
		return err
	}
	blk := gpu.D1(sweepBlock)
	hb := min(ceilDiv(n, sweepBlock*sweepItems), 4*g.sms)
	if err = sl.hist(s, gpu.D1(uint32(hb)), blk, 0, keysIn, meta, begin, end, desc, 0); err != nil {
		return err
	}
	// As radixLSD: pass j writes keysOut where passes-1-j is even, so the
	// last pass lands there; an input that is its output and an odd
	// number of passes start from a copy.
	srcK, srcV := buffer.Array[K](keysIn), valsIn
	if passes%2 == 1 && same(keysIn, keysOut) {
		if err = s.Copy(tmpK, 0, keysIn, 0, n); err != nil {
			return err
		}
		srcK = tmpK
	}
	if pairs && passes%2 == 1 && same(valsIn, valsOut) {
		if err = s.Copy(tmpV, 0, valsIn, 0, n); err != nil {
			return err
		}
		srcV = tmpV
	}
	grid := gpu.D1(uint32(tiles))
	for j := range passes {
		dstK, dstV := buffer.Array[K](tmpK), buffer.Array[V](tmpV)
		if (passes-1-j)%2 == 0 {
			dstK, dstV = keysOut, valsOut
		}
		shift := begin + j*radixBits
		bits := min(radixBits, end-shift)
		if pairs {
			err = pl(s, grid, blk, 0, srcK, dstK, srcV, dstV, meta, states, j, shift, bits, desc)
		} else {
			err = sl.keys(s, grid, blk, 0, srcK, dstK, meta, states, j, shift, bits, desc)
		}
		if err != nil {
			return err
		}
		srcK, srcV = dstK, dstV
	}
	return nil
}
