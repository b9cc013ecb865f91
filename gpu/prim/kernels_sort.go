package prim

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// The radix sort's device side. On a GPU it is Onesweep (Adinets and
// Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs", 2022): one pass over the keys counts every digit's global
// histogram at once (sortHist), one small launch turns the counts into
// each digit's first place (sweepScan), then one launch per 8-bit digit
// ranks a tile of keys in the block (per-warp digit counters, the lanes
// of a warp with equal digits found by eight ballots) and finds where
// the tile's keys of each digit go by decoupled look-back over per-tile
// per-digit states, tiles taken in the order blocks started. A digit
// pass reads the keys once and writes them once. The cpu agent, and
// inputs of 2^30 keys or more, take the pass-by-pass LSD sort (sortCount
// and sortScatter, kernels.go).
//
// A pass's work-items keep their keys, digits and ranks in registers:
// every loop over them runs a constant number of times once the typed
// kernel's shape (block, items) is inlined, so the compiler unrolls it.

// Onesweep's default block (at least one work-item per digit) and the
// most keys a work-item ranks in a pass of any shape.
const (
	sweepBlock    = 256
	sweepItemsMax = 24
)

// A look-back state: two flag bits and a 30-bit count of the digit's
// keys before the tile's (prefix: from the start of the output, tile 0
// adding the digit's first place) or in the tile (aggregate), so a call
// sorts at most 2^30-1 keys this way.
const (
	sweepAggregate uint32 = 1 << 30
	sweepPrefix    uint32 = 2 << 30
	sweepCount     uint32 = 1<<30 - 1
)

// sweepFlip is what a key's ordered number is xor-ed with: its width of
// ones descending (the complement reverses the order), none ascending.
func sweepFlip(width int, desc bool) uint64 {
	if !desc {
		return 0
	}
	return ^uint64(0) >> (64 - width)
}

// ordered32 is ordered for keys of 32 bits or less, in 32-bit
// arithmetic, ascending.
func ordered32[K number](k K, kind int32, width int) uint32 {
	switch kind {
	case kindFloat32:
		b := math.Float32bits(float32(k))
		if b == 0x80000000 {
			b = 0
		}
		if b&0x80000000 != 0 {
			return ^b
		}
		return b | 0x80000000
	case kindSigned:
		return (uint32(int32(k)) ^ uint32(1)<<(width-1)) & (^uint32(0) >> (32 - width))
	}
	return uint32(k) & (^uint32(0) >> (32 - width))
}

// sweepDigit is key k's digit at shift (mask its bits' ones), flip as
// sweepFlip: 32-bit arithmetic for keys of 32 bits or less.
func sweepDigit[K number](k K, kind int32, width int, flip uint64, shift int, mask uint32) uint32 {
	if width <= 32 {
		return (ordered32(k, kind, width) ^ uint32(flip)) >> (shift & 31) & mask
	}
	return uint32((ordered(k, kind, width, false)^flip)>>(shift&63)) & mask
}

// popc32 is the number of ones in x.
func popc32(x uint32) uint32 {
	x -= (x >> 1) & 0x55555555
	x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
	x = (x + (x >> 4)) & 0x0f0f0f0f
	return (x * 0x01010101) >> 24
}

// sortHist counts, for each of the passes digits of bits [begin, end),
// how many keys have each digit value: hist[p*256+d] for pass p. Each
// block counts into bins (shared memory) and adds its counts to hist,
// which starts at zero. span > 0 is the cpu agent's contiguous span.
func sortHist[K number](t kernel.Thread, keys []K, hist []uint32, begin, end int, kind int32, width int, desc bool, span int, bins *[2048]uint32) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	passes := (end - begin + 7) / 8
	flip := sweepFlip(width, desc)
	for i := tid; i < passes*256; i += bd {
		bins[i] = 0
	}
	t.SyncThreads()
	n := len(keys)
	lo, hi, step := t.GlobalX(), n, bd*t.GridDim().X
	if span > 0 {
		lo = min(t.GlobalX()*span, n)
		hi = min(lo+span, n)
		step = 1
	}
	for i := lo; i < hi; i += step {
		k := keys[i]
		// width/8 passes at most: a constant count, unrolled.
		for p := 0; p < width/8; p++ {
			if p < passes {
				shift := begin + 8*p
				d := p*256 + int(sweepDigit(k, kind, width, flip, shift, uint32(1)<<min(8, end-shift)-1))
				if bd == 1 {
					bins[d]++
				} else {
					kernel.AtomicAdd(&bins[d], 1)
				}
			}
		}
	}
	t.SyncThreads()
	for i := tid; i < passes*256; i += bd {
		if c := bins[i]; c != 0 {
			kernel.AtomicAdd(&hist[i], c)
		}
	}
}

// sweepScan turns pass p's digit counts, hist[p*256:][:256] for the
// block p, into each digit's first place in the output: an exclusive
// scan, once per sort, in place.
//
//hipgo:kernel maxthreads=256
func sweepScan(t kernel.Thread, hist []uint32) {
	warps := kernel.Shared[[32]uint32](t)
	i := t.BlockIdx().X*256 + t.ThreadIdx().X
	var c uint32
	if t.ThreadIdx().X < 256 {
		c = hist[i]
	}
	e, _ := blockScan(t, c, warps)
	if t.ThreadIdx().X < 256 {
		hist[i] = e
	}
}

// onesweep is one digit pass of Onesweep (bits bits at shift; pass p of
// the sort): a block of block work-items (at least 256) takes the tile
// of items keys per work-item that its ticket names (meta[2048+p],
// counted by OrderedBlockID) and scatters them, and their values with
// pairs, stably to their places for this digit. meta holds pass p's
// first place of each digit (sweepScan's) at p*256; states holds two
// halves of one state per tile and digit: pass p looks back in half
// p%2, which starts zeroed, and zeroes the other half's row of its tile
// for pass p+1. sk, sv, wcnt, base and start are shared memory: the
// tile's keys and values in their new order, the warps' counts per digit
// (block/32 rows of 256), and per digit where the tile's keys go and
// where they start in the tile. block and items are constants of the
// typed kernel.
func onesweep[K number, V any](t kernel.Thread, keysIn, keysOut []K, valsIn, valsOut []V, pairs bool, meta, states []uint32, p, shift, bits int, kind int32, width int, desc bool, block, items int,
	sk []K, sv []V, wcnt []uint32, base, start *[256]uint32, warps *[32]uint32) {
	tid := t.ThreadIdx().X
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := tid/ws, block/ws
	n := len(keysIn)
	mask := uint32(1)<<bits - 1
	flip := sweepFlip(width, desc)
	half := len(states) / 2
	b := kernel.OrderedBlockID(t, &meta[2048+p])
	cur := (p%2)*half + b*256
	if tid < 256 {
		states[(1-p%2)*half+b*256+tid] = 0
	}
	for x := tid; x < nw*256; x += block {
		wcnt[x] = 0
	}
	t.SyncThreads()

	// Each warp ranks a contiguous run of ws*items keys of the tile, item
	// j of lane l at j*ws+l: ranks in the warp follow input order. A
	// work-item keeps its keys and their ranks in the warp (registers).
	lo := b * block * items
	first := lo + w*ws*items + lane
	var ks [sweepItemsMax]K
	var rk [sweepItemsMax]uint32
	//hipgo:unroll
	for j := 0; j < items; j++ {
		if i := first + j*ws; i < n {
			ks[j] = keysIn[i]
		}
	}
	// A lane's place in the halves of a lane mask.
	sl, sh := min(lane, 32), max(lane-32, 0)
	row := wcnt[w*256 : w*256+256]
	//hipgo:unroll
	for j := 0; j < items; j++ {
		valid := first+j*ws < n
		d := sweepDigit(ks[j], kind, width, flip, shift, mask)
		// The lanes of the warp whose keys have digit d: eight ballots,
		// one per bit (bits past the pass's are zero in every lane). The
		// mask in 32-bit halves: a 32-lane warp's upper one is zero.
		v := kernel.Ballot(t, valid)
		lo32, hi32 := uint32(v), uint32(v>>32)
		//hipgo:unroll
		for bit := 0; bit < 8; bit++ {
			on := d >> bit & 1
			m := kernel.Ballot(t, on == 1)
			lo32 &= uint32(m) ^ (on - 1)
			hi32 &= uint32(m>>32) ^ (on - 1)
		}
		// The lanes before this one: all less those from it on (a count
		// of a masked value the compiler knows bits of is no popc).
		all := popc32(lo32) + popc32(hi32)
		below := all - popc32(lo32>>sl) - popc32(hi32>>sh)
		var pre uint32
		if valid {
			pre = row[d]
		}
		t.SyncWarp()
		if valid && below == 0 {
			row[d] = pre + all
		}
		t.SyncWarp()
		rk[j] = pre + below
	}
	t.SyncThreads()

	// Work-item tid < 256 owns digit tid: its warps' counts become
	// offsets and the tile's count is published at once; the block's
	// counts a scan over digits; the look-back finds how many keys of the
	// digit go before the tile.
	var tot uint32
	if tid < 256 {
		for x := 0; x < nw; x++ {
			c := wcnt[x*256+tid]
			wcnt[x*256+tid] = tot
			tot += c
		}
		if b != 0 {
			kernel.AtomicStore(&states[cur+tid], sweepAggregate|tot, kernel.Release, kernel.ScopeDevice)
		}
	}
	st, _ := blockScan(t, tot, warps)
	if tid < 256 {
		var excl uint32
		if b == 0 {
			excl = meta[p*256+tid]
		} else {
			j := cur - 256 + tid
			for {
				s := kernel.AtomicLoad(&states[j], kernel.Acquire, kernel.ScopeDevice)
				if s&sweepPrefix != 0 {
					excl += s & sweepCount
					break
				}
				if s&sweepAggregate != 0 {
					excl += s & sweepCount
					j -= 256
				}
			}
		}
		kernel.AtomicStore(&states[cur+tid], sweepPrefix|(excl+tot), kernel.Release, kernel.ScopeDevice)
		start[tid] = st
		// A key at place i of the tile's new order goes to base[d]+i: the
		// digit's keys before this tile, less where the digit starts in it
		// (modulo 2^32, exact once added).
		base[tid] = excl - st
	}
	t.SyncThreads()

	//hipgo:unroll
	for j := 0; j < items; j++ {
		if first+j*ws < n {
			d := sweepDigit(ks[j], kind, width, flip, shift, mask) // again: a register less per key
			q := start[d] + row[d] + rk[j]
			sk[q] = ks[j]
			rk[j] = q
		}
	}
	t.SyncThreads()
	// Out in the tile's new order, block keys apart: a digit's keys are
	// consecutive there and in the output.
	m := min(block*items, n-lo)
	var to [sweepItemsMax]uint32
	//hipgo:unroll
	for j := 0; j < items; j++ {
		if i := j*block + tid; i < m {
			k := sk[i]
			to[j] = base[sweepDigit(k, kind, width, flip, shift, mask)] + uint32(i)
			keysOut[to[j]] = k
		}
	}
	if !pairs {
		return
	}
	//hipgo:unroll
	for j := 0; j < items; j++ {
		if i := first + j*ws; i < n {
			sv[rk[j]] = valsIn[i]
		}
	}
	t.SyncThreads()
	//hipgo:unroll
	for j := 0; j < items; j++ {
		if i := j*block + tid; i < m {
			valsOut[to[j]] = sv[i]
		}
	}
}
