package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// A GPU's selection in one pass (Merrill and Garland's decoupled
// look-back, as cub::DeviceSelect and DeviceRunLengthEncode run it): each
// block takes the tile its ticket names (tickets in the order blocks
// started, so the tiles before it belong to running or finished blocks),
// loads it once, ranks its selected elements by warp ballots and a block
// scan of the warps' counts, publishes the tile's count, finds how many
// the tiles before it selected by a warp's look-back over their states,
// and writes its selected elements, staged in shared memory in their
// order, with coalesced stores. The last tile writes num[0].
//
// Tickets are taken as kernel.OrderedBlockID takes them, on a 64-bit
// counter after the states, so that one memset clears both.
//
// A tile's state is one 64-bit word, read and written by one atomic: the
// status in the top two bits, the count below (at most 2^62-1).
const (
	selAggregate uint64 = 1 << 62 // the tile's own count
	selPrefix    uint64 = 2 << 62 // the count of the tiles up to it
	selCount     uint64 = 1<<62 - 1
)

// selMaxItems is the most elements a work-item takes in a tile.
const selMaxItems = 32

// pick says whether element i, x (after prev), is selected; f is its flag.
func pick[T number](x, prev T, f bool, i int, pred int32, a T) bool {
	switch pred {
	case predFlags:
		return f
	case predUnique:
		return i == 0 || x != prev
	case predLess:
		return x < a
	case predLessEqual:
		return x <= a
	case predGreater:
		return x > a
	case predGreaterEqual:
		return x >= a
	case predEqual:
		return x == a
	}
	return x != a
}

// selectSweep is the one-pass selection over tiles of items elements per
// work-item: element j*BlockDim+tid of the tile is a work-item's item j
// (coalesced loads). states has one state per tile and the ticket
// counter last, all zero at the start. With partition the rejected
// elements go after the selected ones from the end of out backwards
// (selectReverse puts them in order). With rle (a run-length encoding:
// pred is predUnique) counts[r] gets run r's length: heads holds each
// tile's last run head (at [tile]) and the last one up to the tile (at
// [tiles+tile]), beside its state. sh and shI stage the tile (values, or
// with rle the heads' places in the tile); wc holds the warps' counts of
// each item, then where they start in the tile; lastOf the warps' last
// elements of each item (Unique).
func selectSweep[T Number](t kernel.Thread, in []T, flags []uint8, out []T, counts []int64, pred int32, a T, states []uint64, heads, num []int64, partition, rle bool, items int,
	sh []T, shI []int32, lastOf *[256]T, wc *[256]int32, warps *[32]int32, bcast *[4]int64) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := tid/ws, bd/ws
	n := len(in)
	tiles := len(states) - 1
	if tid == 0 {
		bcast[0] = int64(kernel.AtomicAdd(&states[tiles], 1))
	}
	t.SyncThreads()
	b := int(bcast[0])
	lo := b * bd * items

	// The tile's elements and their flags (with flags; 0: not selected).
	// For Unique each warp's last lane leaves its elements in lastOf
	// for the next warp's first lane (the other lanes take the elements
	// before theirs by shuffles), and the tile's first element meets the
	// one before the tile.
	// Each phase below takes the items one by one through calls with
	// constant item numbers (eight calls of four): device functions are
	// inlined, so xs stays in registers and the loads are all in flight
	// at once, where a loop over the items would put xs in local memory.
	var xs [selMaxItems]T
	var fs [selMaxItems]uint8
	at := lo + tid
	xs, fs = selLoad4(in, flags, xs, fs, pred, 0, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 4, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 8, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 12, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 16, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 20, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 24, at, bd, n, items)
	xs, fs = selLoad4(in, flags, xs, fs, pred, 28, at, bd, n, items)
	if pred == predUnique {
		if lane == ws-1 {
			selLast4(xs, lastOf, 0, w, nw, items)
			selLast4(xs, lastOf, 4, w, nw, items)
			selLast4(xs, lastOf, 8, w, nw, items)
			selLast4(xs, lastOf, 12, w, nw, items)
			selLast4(xs, lastOf, 16, w, nw, items)
			selLast4(xs, lastOf, 20, w, nw, items)
			selLast4(xs, lastOf, 24, w, nw, items)
			selLast4(xs, lastOf, 28, w, nw, items)
		}
		t.SyncThreads()
	}
	var sel uint32 // bit j: item j is selected
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 0, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 4, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 8, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 12, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 16, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 20, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 24, at, bd, n, items, w, nw)
	sel = selRank4(t, in, xs, fs, sel, lastOf, wc, pred, a, 28, at, bd, n, items, w, nw)
	t.SyncThreads()

	// Where each warp's selected elements of each item start in the tile:
	// the tile's order is item, then warp, then lane.
	var c int32
	if tid < items*nw {
		c = wc[tid]
	}
	pre, total := blockScan(t, c, warps)
	if tid < items*nw {
		wc[tid] = pre
	}
	if !rle && tid == 0 {
		selPublish(states, heads, b, tiles, int64(total), -1, rle)
	}
	t.SyncThreads()
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 0, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 4, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 8, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 12, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 16, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 20, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 24, at, bd, tid, n, items, w, nw)
	selStage4(t, xs, sel, sh, shI, wc, total, partition, rle, 28, at, bd, tid, n, items, w, nw)
	t.SyncThreads()
	last := int64(-1) // the tile's last head (rle)
	if rle && total > 0 {
		last = int64(lo) + int64(shI[total-1])
	}
	if rle && tid == 0 {
		selPublish(states, heads, b, tiles, int64(total), last, rle)
	}

	if w == 0 {
		excl, prev := selLookBack(t, states, heads, b, tiles, rle)
		if lane == 0 {
			if b > 0 {
				if rle {
					heads[tiles+b] = max(prev, last)
				}
				kernel.AtomicStore(&states[b], selPrefix|uint64(excl+int64(total)), kernel.Release, kernel.ScopeDevice)
			}
			bcast[1], bcast[2] = excl, prev
			if b == tiles-1 {
				num[0] = excl + int64(total)
				if rle {
					counts[excl+int64(total)-1] = int64(n) - max(prev, last)
				}
			}
		}
	}
	t.SyncThreads()
	base, prev := bcast[1], bcast[2]
	lim := int(total)
	if partition {
		lim = min(bd*items, n-lo)
	}
	for p := tid; p < lim; p += bd {
		q := base + int64(p)
		if rle {
			i := int64(lo) + int64(shI[p])
			out[q] = in[i]
			if q > 0 {
				if p > 0 {
					prev = int64(lo) + int64(shI[p-1])
				}
				counts[q-1] = i - prev
			}
		} else if p < int(total) {
			out[q] = sh[p]
		} else {
			out[int64(n-1-lo)+base-int64(p-int(total))] = sh[p]
		}
	}
}

// selLoad4 loads items j to j+3 of a work-item (element at+item*bd)
// into xs, and their flags into fs (used only after every load is
// issued).
func selLoad4[T Number](in []T, flags []uint8, xs [selMaxItems]T, fs [selMaxItems]uint8, pred int32, j, at, bd, n, items int) ([selMaxItems]T, [selMaxItems]uint8) {
	xs, fs = selLoad(in, flags, xs, fs, pred, j, at, bd, n, items)
	xs, fs = selLoad(in, flags, xs, fs, pred, j+1, at, bd, n, items)
	xs, fs = selLoad(in, flags, xs, fs, pred, j+2, at, bd, n, items)
	xs, fs = selLoad(in, flags, xs, fs, pred, j+3, at, bd, n, items)
	return xs, fs
}

func selLoad[T Number](in []T, flags []uint8, xs [selMaxItems]T, fs [selMaxItems]uint8, pred int32, j, at, bd, n, items int) ([selMaxItems]T, [selMaxItems]uint8) {
	if i := at + j*bd; j < items && i < n {
		xs[j] = in[i]
		if pred == predFlags {
			fs[j] = flags[i]
		}
	}
	return xs, fs
}

// selLast4 leaves a warp's last lane's items j to j+3 in lastOf.
func selLast4[T Number](xs [selMaxItems]T, lastOf *[256]T, j, w, nw, items int) {
	if j >= items {
		return
	}
	lastOf[j*nw+w] = xs[j]
	lastOf[(j+1)*nw+w] = xs[j+1]
	lastOf[(j+2)*nw+w] = xs[j+2]
	lastOf[(j+3)*nw+w] = xs[j+3]
}

// selRank4 decides items j to j+3 (bits of sel) and counts each one's
// selected elements in the warp into wc.
func selRank4[T Number](t kernel.Thread, in []T, xs [selMaxItems]T, fs [selMaxItems]uint8, sel uint32, lastOf *[256]T, wc *[256]int32, pred int32, a T, j, at, bd, n, items, w, nw int) uint32 {
	sel = selRank(t, in, xs, fs, sel, lastOf, wc, pred, a, j, at, bd, n, items, w, nw)
	sel = selRank(t, in, xs, fs, sel, lastOf, wc, pred, a, j+1, at, bd, n, items, w, nw)
	sel = selRank(t, in, xs, fs, sel, lastOf, wc, pred, a, j+2, at, bd, n, items, w, nw)
	sel = selRank(t, in, xs, fs, sel, lastOf, wc, pred, a, j+3, at, bd, n, items, w, nw)
	return sel
}

func selRank[T Number](t kernel.Thread, in []T, xs [selMaxItems]T, fs [selMaxItems]uint8, sel uint32, lastOf *[256]T, wc *[256]int32, pred int32, a T, j, at, bd, n, items, w, nw int) uint32 {
	if j < items {
		lane := t.Lane()
		i := at + j*bd
		var prev T
		if pred == predUnique {
			prev = kernel.ShflUp(t, xs[j], 1)
			if lane == 0 && i < n {
				if w > 0 || j > 0 {
					prev = lastOf[j*nw+w-1]
				} else if i > 0 {
					prev = in[i-1]
				}
			}
		}
		on := i < n && pick(xs[j], prev, fs[j] != 0, i, pred, a)
		m := kernel.Ballot(t, on)
		if on {
			sel |= uint32(1) << j
		}
		if lane == 0 {
			wc[j*nw+w] = int32(popc(m))
		}
	}
	return sel
}

// selStage4 stages items j to j+3 in shared memory at their places in
// the tile's output.
func selStage4[T Number](t kernel.Thread, xs [selMaxItems]T, sel uint32, sh []T, shI []int32, wc *[256]int32, total int32, partition, rle bool, j, at, bd, tid, n, items, w, nw int) {
	selStage(t, xs, sel, sh, shI, wc, total, partition, rle, j, at, bd, tid, n, items, w, nw)
	selStage(t, xs, sel, sh, shI, wc, total, partition, rle, j+1, at, bd, tid, n, items, w, nw)
	selStage(t, xs, sel, sh, shI, wc, total, partition, rle, j+2, at, bd, tid, n, items, w, nw)
	selStage(t, xs, sel, sh, shI, wc, total, partition, rle, j+3, at, bd, tid, n, items, w, nw)
}

func selStage[T Number](t kernel.Thread, xs [selMaxItems]T, sel uint32, sh []T, shI []int32, wc *[256]int32, total int32, partition, rle bool, j, at, bd, tid, n, items, w, nw int) {
	if j < items {
		// The ballot again rather than a register per item.
		on := sel>>j&1 != 0
		lt := uint64(1)<<t.Lane() - 1
		r := wc[j*nw+w] + int32(popc(kernel.Ballot(t, on)&lt))
		if at+j*bd < n {
			if on {
				if rle {
					shI[r] = int32(j*bd + tid)
				} else {
					sh[r] = xs[j]
				}
			} else if partition {
				sh[total+int32(j*bd+tid)-r] = xs[j]
			}
		}
	}
}

// selPublish publishes tile b's count c, and with rle its last head
// (-1 for none): tile 0's as its prefix, another's as its aggregate.
func selPublish(states []uint64, heads []int64, b, tiles int, c, last int64, rle bool) {
	if rle {
		heads[b] = last
	}
	if b == 0 {
		if rle {
			heads[tiles] = last
		}
		kernel.AtomicStore(&states[0], selPrefix|uint64(c), kernel.Release, kernel.ScopeDevice)
		return
	}
	kernel.AtomicStore(&states[b], selAggregate|uint64(c), kernel.Release, kernel.ScopeDevice)
}

// selLookBack is run by a warp for tile b: how many elements the tiles
// before it selected, and with rle the last run head before it (-1 for
// none). Lane l reads the state of tile b-1-l, a window of a warp's tiles
// at a time back to the nearest one that has published its prefix (the
// lowest lane whose state says so: a ballot), and the warp sums the
// counts up to it. A window with a tile that has published nothing yet
// is read again. Tile 0 (and the tiles before it, which do not exist)
// count as a prefix of 0.
func selLookBack(t kernel.Thread, states []uint64, heads []int64, b, tiles int, rle bool) (int64, int64) {
	ws, lane := t.WarpSize(), t.Lane()
	var excl int64
	last := int64(-1)
	j := b - 1 - lane
	done := false
	for !done {
		s := selPrefix
		if j >= 0 {
			s = kernel.AtomicLoad(&states[j], kernel.Acquire, kernel.ScopeDevice)
		}
		if !kernel.Any(t, s == 0) {
			pm := kernel.Ballot(t, s&selPrefix != 0)
			k := ws
			if pm != 0 {
				k = ctz(pm)
			}
			var c int64
			h := int64(-1)
			if lane <= k {
				c = int64(s & selCount)
				if rle && j >= 0 {
					h = heads[j]
					if lane == k {
						h = heads[tiles+j]
					}
				}
			}
			excl += kernel.ReduceAddSync(t, kernel.FullMask, c)
			if rle {
				last = max(last, kernel.ReduceMaxSync(t, kernel.FullMask, h))
			}
			done = pm != 0
			j -= ws
		}
	}
	return excl, last
}

// selectReverse reverses out[num[0]:n], the rejected elements of a
// partition that selectSweep wrote from the end backwards.
func selectReverse[T number](t kernel.Thread, out []T, num []int64, n int) {
	s := int(num[0])
	h := (n - s) / 2
	for k := t.GlobalX(); k < h; k += t.BlockDim().X * t.GridDim().X {
		x, y := out[s+k], out[n-1-k]
		out[s+k], out[n-1-k] = y, x
	}
}

// ctz is the number of trailing zeros of x, 64 for 0.
func ctz(x uint64) int { return popc((x & -x) - 1) }
