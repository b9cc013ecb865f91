package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// The radix sort's device side. On a GPU it is Onesweep (Adinets and
// Merrill, "Onesweep: A Faster Least Significant Digit Radix Sort for
// GPUs", 2022): one pass over the keys counts every digit's global
// histogram at once (sortHist), then one launch per 8-bit digit ranks a
// tile of keys in the block (per-warp digit counters, the lanes of a warp
// with equal digits found by ballots) and finds where the tile's keys of
// each digit go by decoupled look-back over per-tile per-digit states,
// tiles taken in the order blocks started. A digit pass reads the keys
// once and writes them once. The cpu agent, and inputs of 2^30 keys or
// more, take the pass-by-pass LSD sort (sortCount and sortScatter,
// kernels.go).

// Onesweep's shape: a block of one work-item per digit.
const (
	sweepBlock = 256
	sweepItems = 16 // the most keys a work-item ranks in a pass
)

// A look-back state: two flag bits and a 30-bit count of the digit's
// keys in the tile (aggregate) or in the tiles up to it (prefix), so a
// call sorts at most 2^30-1 keys this way.
const (
	sweepAggregate uint32 = 1 << 30
	sweepPrefix    uint32 = 2 << 30
	sweepCount     uint32 = 1<<30 - 1
)

// sortHist counts, for each of the passes digits of bits [begin, end),
// how many keys have each digit value: hist[p*256+d] for pass p. Each
// block counts into bins (shared memory) and adds its counts to hist,
// which starts at zero. span > 0 is the cpu agent's contiguous span.
func sortHist[K number](t kernel.Thread, keys []K, hist []uint32, begin, end int, kind int32, width int, desc bool, span int, bins *[2048]uint32) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	passes := (end - begin + 7) / 8
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
		u := ordered(keys[i], kind, width, desc)
		for p := 0; p < passes; p++ {
			shift := begin + 8*p
			bits := min(8, end-shift)
			d := p*256 + int((u>>shift)&(uint64(1)<<bits-1))
			if bd == 1 {
				bins[d]++
			} else {
				kernel.AtomicAdd(&bins[d], 1)
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

// ctz is the number of trailing zeros of x, 64 for 0.
func ctz(x uint64) int { return popc((x & -x) - 1) }

// onesweep is one digit pass of Onesweep (bits bits at shift; pass p of
// the sort): a block of sweepBlock work-items takes the tile of items
// keys per work-item that its ticket names (meta[2048+p], counted by
// OrderedBlockID) and scatters them, and their values with pairs, stably
// to their places for this digit. meta holds pass p's global digit
// counts (sortHist's) at p*256; states holds two halves of one state per tile and digit: pass p looks
// back in half p%2, which starts zeroed, and zeroes the other half's row
// of its tile for pass p+1. sk, sv, wcnt, base and start are shared
// memory: the tile's keys and values in their new order, the warps'
// counts per digit, and per digit where the tile's keys go and where
// they start in the tile.
func onesweep[K number, V any](t kernel.Thread, keysIn, keysOut []K, valsIn, valsOut []V, pairs bool, meta, states []uint32, p, shift, bits int, kind int32, width int, desc bool, items int,
	sk []K, sv []V, wcnt *[2048]uint32, base, start *[256]uint32, warps *[32]uint32) {
	tid := t.ThreadIdx().X
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := tid/ws, sweepBlock/ws
	n := len(keysIn)
	mask := uint64(1)<<bits - 1
	half := len(states) / 2
	b := kernel.OrderedBlockID(t, &meta[2048+p])
	cur := (p%2)*half + b*256
	states[(1-p%2)*half+b*256+tid] = 0
	for x := 0; x < nw; x++ {
		wcnt[x*256+tid] = 0
	}
	t.SyncThreads()

	// Each warp ranks a contiguous run of ws*items keys of the tile, item
	// j of lane l at j*ws+l: ranks in the warp follow input order.
	lo := b * sweepBlock * items
	first := lo + w*ws*items + lane
	var ks [sweepItems]K
	var ds [sweepItems]uint32 // digits, 32-bit to spare registers
	var rk [sweepItems]uint32
	for j := 0; j < sweepItems; j++ {
		if i := first + j*ws; j < items && i < n {
			ks[j] = keysIn[i]
		}
	}
	lt := uint64(1)<<lane - 1
	for j := 0; j < sweepItems; j++ {
		if j < items {
			valid := first+j*ws < n
			d := 0
			if valid {
				d = int((ordered(ks[j], kind, width, desc) >> shift) & mask)
			}
			peers := kernel.Ballot(t, valid)
			for bit := 0; bit < bits; bit++ {
				on := (d>>bit)&1 == 1
				m := kernel.Ballot(t, on)
				if on {
					peers &= m
				} else {
					peers &^= m
				}
			}
			rank := uint32(popc(peers & lt))
			var pre uint32
			if valid && rank == 0 {
				pre = wcnt[w*256+d]
				wcnt[w*256+d] = pre + uint32(popc(peers))
			}
			t.SyncWarp()
			pre = kernel.Shfl(t, pre, ctz(peers)&(ws-1))
			ds[j], rk[j] = uint32(d), pre+rank
		}
	}
	t.SyncThreads()

	// Work-item tid owns digit tid: its warps' counts become offsets, the
	// block's counts a scan over digits, and the look-back finds how many
	// keys of the digit earlier tiles hold.
	var tot uint32
	for x := 0; x < nw; x++ {
		c := wcnt[x*256+tid]
		wcnt[x*256+tid] = tot
		tot += c
	}
	st, _ := blockScan(t, tot, warps)
	t.SyncThreads()
	gex, _ := blockScan(t, meta[p*256+tid], warps)
	var excl uint32
	if b == 0 {
		kernel.AtomicStore(&states[cur+tid], sweepPrefix|tot, kernel.Release, kernel.ScopeDevice)
	} else {
		kernel.AtomicStore(&states[cur+tid], sweepAggregate|tot, kernel.Release, kernel.ScopeDevice)
		j := cur - 256 + tid
		done := false
		for !done {
			s := kernel.AtomicLoad(&states[j], kernel.Acquire, kernel.ScopeDevice)
			if s&sweepPrefix != 0 {
				excl += s & sweepCount
				done = true
			} else if s&sweepAggregate != 0 {
				excl += s & sweepCount
				j -= 256
			}
		}
		kernel.AtomicStore(&states[cur+tid], sweepPrefix|(excl+tot), kernel.Release, kernel.ScopeDevice)
	}
	start[tid] = st
	// A key at place i of the tile's new order goes to base[d]+i: the
	// digit's keys before this tile, less where the digit starts in it
	// (modulo 2^32, exact once added).
	base[tid] = gex + excl - st
	t.SyncThreads()

	for j := 0; j < sweepItems; j++ {
		if j < items && first+j*ws < n {
			d := int(ds[j])
			q := start[d] + wcnt[w*256+d] + rk[j]
			sk[q] = ks[j]
			rk[j] = q
		}
	}
	t.SyncThreads()
	m := min(sweepBlock*items, n-lo)
	for i := tid; i < m; i += sweepBlock {
		k := sk[i]
		d := int((ordered(k, kind, width, desc) >> shift) & mask)
		keysOut[base[d]+uint32(i)] = k
	}
	if !pairs {
		return
	}
	for j := 0; j < sweepItems; j++ {
		if i := first + j*ws; j < items && i < n {
			sv[rk[j]] = valsIn[i]
		}
	}
	t.SyncThreads()
	for i := tid; i < m; i += sweepBlock {
		d := int((ordered(sk[i], kind, width, desc) >> shift) & mask)
		valsOut[base[d]+uint32(i)] = sv[i]
	}
}
