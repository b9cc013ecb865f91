package prim

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// sweepShape is a Onesweep pass of uint32 keys (keys) or uint32/uint32
// pairs (pairs) in a shape of its own: block work-items of items keys.
type sweepShape struct {
	block, items int
	keys         sweepKeysLaunch[uint32]
	pairs        sweepPairsLaunch[uint32, uint32]
}

// sweepTune names a shape of sweepTuneKeys and sweepTunePairs that
// uint32 sorts take instead of their default ("384x16"); the benchmarks
// set it to compare shapes. A name neither holds is the type's own
// kernel's shape, 256x16.
var sweepTune string

// The shapes uint32 keys and uint32/uint32 pairs take while sweepTune is
// "": the fastest of the H100's benchmarks ("" for the type's own
// kernel).
const (
	sweepKeysShape  = ""
	sweepPairsShape = ""
)

// tuned is the pass of sweepTune's shape for K keys (and V values with
// pairs), ok false where there is none.
func tuned[K Key, V Value](pairs bool) (keys sweepKeysLaunch[K], pl sweepPairsLaunch[K, V], block, items int, ok bool) {
	if _, u := any((*K)(nil)).(*uint32); !u {
		return nil, nil, 0, 0, false
	}
	name := sweepTune
	if !pairs {
		if name == "" {
			name = sweepKeysShape
		}
		sh, found := sweepTuneKeys[name]
		keys, ok = any(sh.keys).(sweepKeysLaunch[K])
		return keys, nil, sh.block, sh.items, found && ok
	}
	if name == "" {
		name = sweepPairsShape
	}
	sh, found := sweepTunePairs[name]
	pl, ok = any(sh.pairs).(sweepPairsLaunch[K, V])
	return nil, pl, sh.block, sh.items, found && ok
}

// onesweepSort is the sort on a GPU: one histogram of every pass's
// digits, their scan into each digit's first place, then one launch per
// 8-bit digit (kernels_sort.go).
func onesweepSort[K Key, V Value](s *stream.Stream, g shape, keysIn, keysOut buffer.Array[K], valsIn, valsOut buffer.Array[V], desc bool, begin, end int, pairs bool) (err error) {
	n := keysIn.Len()
	passes := ceilDiv(end-begin, radixBits)
	sl := sweepFor[K]()
	kl, block, items := sl.keys, sl.block, sl.items
	var pl sweepPairsLaunch[K, V]
	if pairs {
		pl, block, items = sweepPairsFor[K, V]()
	}
	if tk, tp, tb, ti, ok := tuned[K, V](pairs); ok {
		kl, pl, block, items = tk, tp, tb, ti
	}
	tiles := ceilDiv(n, block*items)
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
	hb := min(ceilDiv(n, sweepBlock*16), 4*g.sms)
	if err = sl.hist(s, gpu.D1(uint32(hb)), gpu.D1(sweepBlock), 0, keysIn, meta, begin, end, desc, 0); err != nil {
		return err
	}
	if err = LaunchSweepScan(s, gpu.D1(uint32(passes)), gpu.D1(256), 0, meta); err != nil {
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
	grid, blk := gpu.D1(uint32(tiles)), gpu.D1(uint32(block))
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
			err = kl(s, grid, blk, 0, srcK, dstK, meta, states, j, shift, bits, desc)
		}
		if err != nil {
			return err
		}
		srcK, srcV = dstK, dstV
	}
	return nil
}
