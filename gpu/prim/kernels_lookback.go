package prim

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// The single-pass scan of large inputs on a GPU: decoupled look-back
// (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016), as CUB and rocPRIM run it. Each block takes a ticket
// in the order blocks started (so the tiles before it belong to running
// or finished blocks), publishes its tile's total (aggregate), then its
// first warp walks back over its predecessors' states a warp's width at
// a time, adding aggregates up to the nearest published inclusive
// prefix; the block publishes its own inclusive prefix and scans its
// tile from the exclusive one. Inputs are read once and outputs written
// once: 2n, where reduce-then-scan moves 3n.
//
// A tile's state is one 64-bit word: the status in the high half and,
// for element types of 4 bytes, the value's bits in the low half, so
// that one relaxed atomic load gives a reader both and no fence stands
// between value and status. 8-byte types keep their values in agg and
// incl, published before the status by a release store and read after it
// by an acquire load.

// Look-back statuses of a tile (the high half of its state).
const (
	tileNone      uint64 = iota // nothing published yet
	tileAggregate               // the tile's total is published
	tilePrefix                  // the inclusive prefix is published
)

// tileHead, beside a scan by key's aggregate status, says the tile holds
// the head of a run: its total is the sum from the last head on, and the
// tiles before it add nothing to the tiles after it.
const tileHead uint64 = 4

// lbTicket is the block's tile: the order in which blocks reached it
// (a ticket from the counter after the tiles' states, zero at the
// launch's start), which blockIdx does not promise; every work-item of
// the block must call it.
func lbTicket(t kernel.Thread, states []uint64, id *[2]uint64) int {
	if t.ThreadIdx().X == 0 {
		id[0] = kernel.AtomicAdd(&states[len(states)-1], 1)
	}
	t.SyncThreads()
	return int(id[0])
}

// lbBits is v's bits in a state's low half (a 4-byte type of kind).
func lbBits[T kernel.Shuffleable](v T, kind int32) uint64 {
	switch kind {
	case kindFloat32:
		return uint64(math.Float32bits(float32(v)))
	case kindSigned:
		return uint64(uint32(int32(v)))
	}
	return uint64(uint32(v))
}

// lbValue is the value whose bits lbBits put in a state's low half.
func lbValue[T kernel.Shuffleable](w uint64, kind int32) T {
	switch kind {
	case kindFloat32:
		return T(math.Float32frombits(uint32(w)))
	case kindSigned:
		return T(int32(uint32(w)))
	}
	return T(uint32(w))
}

// lbLoadVec4 moves the block's tile of in (from lo) into sh: 16-byte
// loads where vec says in starts on a 16-byte boundary and the tile is
// whole, else an element a work-item, zero past the end.
func lbLoadVec4[T kernel.Word4](t kernel.Thread, in, sh []T, lo, tile int, vec bool) {
	n := len(in)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	if vec && lo+tile <= n {
		// Every load of the work-item issued before the stores wait for
		// them: up to four in flight, then two, then one.
		base, nv := lo/4, tile/4
		c := tid
		for ; c+3*bd < nv; c += 4 * bd {
			v0, v1, v2, v3 := kernel.Load4(in, base+c), kernel.Load4(in, base+c+bd), kernel.Load4(in, base+c+2*bd), kernel.Load4(in, base+c+3*bd)
			kernel.Store4(sh, c, v0)
			kernel.Store4(sh, c+bd, v1)
			kernel.Store4(sh, c+2*bd, v2)
			kernel.Store4(sh, c+3*bd, v3)
		}
		for ; c+bd < nv; c += 2 * bd {
			v0, v1 := kernel.Load4(in, base+c), kernel.Load4(in, base+c+bd)
			kernel.Store4(sh, c, v0)
			kernel.Store4(sh, c+bd, v1)
		}
		if c < nv {
			kernel.Store4(sh, c, kernel.Load4(in, base+c))
		}
	} else {
		for j := tid; j < tile; j += bd {
			var x T
			if lo+j < n {
				x = in[lo+j]
			}
			sh[j] = x
		}
	}
	t.SyncThreads()
}

// lbStoreVec4 moves sh to the block's tile of out: lbLoadVec4 reversed.
func lbStoreVec4[T kernel.Word4](t kernel.Thread, out, sh []T, lo, tile int, vec bool) {
	n := len(out)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	if vec && lo+tile <= n {
		base := lo / 4
		for c := tid; c < tile/4; c += bd {
			kernel.Store4(out, base+c, kernel.Load4(sh, c))
		}
	} else {
		for j := tid; j < tile; j += bd {
			if lo+j < n {
				out[lo+j] = sh[j]
			}
		}
	}
}

// lbLoadVec2 is lbLoadVec4 for 8-byte types.
func lbLoadVec2[T kernel.Word8](t kernel.Thread, in, sh []T, lo, tile int, vec bool) {
	n := len(in)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	if vec && lo+tile <= n {
		base, nv := lo/2, tile/2
		c := tid
		for ; c+3*bd < nv; c += 4 * bd {
			v0, v1, v2, v3 := kernel.Load2(in, base+c), kernel.Load2(in, base+c+bd), kernel.Load2(in, base+c+2*bd), kernel.Load2(in, base+c+3*bd)
			kernel.Store2(sh, c, v0)
			kernel.Store2(sh, c+bd, v1)
			kernel.Store2(sh, c+2*bd, v2)
			kernel.Store2(sh, c+3*bd, v3)
		}
		for ; c+bd < nv; c += 2 * bd {
			v0, v1 := kernel.Load2(in, base+c), kernel.Load2(in, base+c+bd)
			kernel.Store2(sh, c, v0)
			kernel.Store2(sh, c+bd, v1)
		}
		if c < nv {
			kernel.Store2(sh, c, kernel.Load2(in, base+c))
		}
	} else {
		for j := tid; j < tile; j += bd {
			var x T
			if lo+j < n {
				x = in[lo+j]
			}
			sh[j] = x
		}
	}
	t.SyncThreads()
}

// lbStoreVec2 is lbStoreVec4 for 8-byte types.
func lbStoreVec2[T kernel.Word8](t kernel.Thread, out, sh []T, lo, tile int, vec bool) {
	n := len(out)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	if vec && lo+tile <= n {
		base := lo / 2
		for c := tid; c < tile/2; c += bd {
			kernel.Store2(out, base+c, kernel.Load2(sh, c))
		}
	} else {
		for j := tid; j < tile; j += bd {
			if lo+j < n {
				out[lo+j] = sh[j]
			}
		}
	}
}

// scanLookBack scans tile b, which sh holds (tile elements, items
// consecutive ones a work-item), in place: the tile's total, the
// look-back for the total of the tiles before it, then each work-item's
// run from there. states has one word a tile; packed says the values
// travel in them (4-byte types of kind), else in agg and incl.
func scanLookBack[T kernel.Shuffleable](t kernel.Thread, agg, incl []T, states []uint64, exclusive bool, b, tile int, packed bool, kind int32, sh []T, warps, bcast *[32]T) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	items := tile / bd
	var sum T
	for j := 0; j < items; j++ {
		sum += sh[tid*items+j]
	}
	pre, total := blockScan(t, sum, warps)
	if tid < t.WarpSize() {
		var excl T
		if b == 0 {
			if tid == 0 {
				lbPublish(agg, incl, states, 0, tilePrefix, total, packed, kind)
			}
		} else {
			if tid == 0 {
				lbPublish(agg, incl, states, b, tileAggregate, total, packed, kind)
			}
			excl = lookBack(t, agg, incl, states, b, packed, kind)
			if tid == 0 {
				lbPublish(agg, incl, states, b, tilePrefix, excl+total, packed, kind)
			}
		}
		if tid == 0 {
			bcast[0] = excl
		}
	}
	t.SyncThreads()
	run := bcast[0] + pre
	for j := 0; j < items; j++ {
		x := sh[tid*items+j]
		if exclusive {
			sh[tid*items+j] = run
			run += x
		} else {
			run += x
			sh[tid*items+j] = run
		}
	}
	t.SyncThreads()
}

// lbPublish sets tile b's state to status with value v.
func lbPublish[T kernel.Shuffleable](agg, incl []T, states []uint64, b int, status uint64, v T, packed bool, kind int32) {
	if packed {
		kernel.AtomicStore(&states[b], status<<32|lbBits(v, kind), kernel.Relaxed, kernel.ScopeDevice)
		return
	}
	if status&3 == tilePrefix {
		incl[b] = v
	} else {
		agg[b] = v
	}
	kernel.AtomicStore(&states[b], status<<32, kernel.Release, kernel.ScopeDevice)
}

// lookBack is the total of the tiles before b (b > 0), walked by the
// block's first warp, each of its lanes on one predecessor: the window of
// the warp's width ending at tile b-1, once every one of them has
// published; the aggregates from the nearest inclusive prefix (or, by
// key, aggregate with a head) on, that one included, if the window holds
// one, else all of them and the window before. Every lane returns the
// total.
func lookBack[T kernel.Shuffleable](t kernel.Thread, agg, incl []T, states []uint64, b int, packed bool, kind int32) T {
	ws, lane := t.WarpSize(), t.Lane()
	var excl T
	last := b - 1
	for {
		p := last - (ws - 1) + lane
		w := tilePrefix << 32 // before tile 0: a prefix of zero
		for {
			if p >= 0 {
				if packed {
					w = kernel.AtomicLoad(&states[p], kernel.Relaxed, kernel.ScopeDevice)
				} else {
					w = kernel.AtomicLoad(&states[p], kernel.Acquire, kernel.ScopeDevice)
				}
			}
			if kernel.BallotSync(t, kernel.FullMask, w>>32 == tileNone) == 0 {
				break
			}
		}
		status := w >> 32
		var v T
		if packed {
			v = lbValue[T](w, kind)
		} else if p >= 0 {
			if status&3 == tilePrefix {
				v = incl[p]
			} else {
				v = agg[p]
			}
		}
		// A prefix, or a scan by key's aggregate with a head, ends the walk.
		pm := kernel.BallotSync(t, kernel.FullMask, status == tilePrefix || status&tileHead != 0)
		if (pm>>lane)>>1 != 0 {
			v = 0 // before the nearest end
		}
		// The window's total in tile order (lane 0 the oldest), kept for
		// operations that do not commute.
		for d := 1; d < ws; d <<= 1 {
			y := kernel.ShflDownSync(t, kernel.FullMask, v, d, ws)
			if lane+d < ws {
				v += y
			}
		}
		excl = kernel.ShflSync(t, kernel.FullMask, v, 0, ws) + excl
		if pm != 0 {
			break
		}
		last -= ws
	}
	return excl
}

// lbLoadHeads moves the block's tile of a scan by key's head flags (from
// lo) into shf, zero past the end; lbLoadVec4 or 2 has loaded the values
// and synchronized after.
func lbLoadHeads(t kernel.Thread, heads []uint8, shf *[2816]uint8, lo, tile int) {
	n := len(heads)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	for j := tid; j < tile; j += bd {
		var h uint8
		if lo+j < n {
			h = heads[lo+j]
		}
		shf[j] = h
	}
}

// segScanLookBack is scanLookBack for a scan by key: shf holds the
// tile's head flags, a tile's aggregate is its sum from its last head on
// (with tileHead where it has one), and each work-item's run restarts at
// a head.
func segScanLookBack[T kernel.Shuffleable](t kernel.Thread, agg, incl []T, states []uint64, exclusive bool, b, tile int, packed bool, kind int32, sh []T, shf *[2816]uint8, warpsF *[32]int32, warpsV, bcast *[32]T) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	items := tile / bd
	var f int32
	var v T
	for j := 0; j < items; j++ {
		x := sh[tid*items+j]
		if shf[tid*items+j] != 0 {
			f, v = 1, x
		} else {
			v += x
		}
	}
	pf, pv, tf, tv := blockSegScan(t, f, v, warpsF, warpsV)
	if tid < t.WarpSize() {
		var excl T
		if b == 0 {
			if tid == 0 {
				lbPublish(agg, incl, states, 0, tilePrefix, tv, packed, kind)
			}
		} else {
			status := tileAggregate
			if tf != 0 {
				status |= tileHead
			}
			if tid == 0 {
				lbPublish(agg, incl, states, b, status, tv, packed, kind)
			}
			excl = lookBack(t, agg, incl, states, b, packed, kind)
			if tid == 0 {
				inc := excl + tv
				if tf != 0 {
					inc = tv
				}
				lbPublish(agg, incl, states, b, tilePrefix, inc, packed, kind)
			}
		}
		if tid == 0 {
			bcast[0] = excl
		}
	}
	t.SyncThreads()
	run := pv
	if pf == 0 {
		run = bcast[0] + pv
	}
	for j := 0; j < items; j++ {
		x := sh[tid*items+j]
		if shf[tid*items+j] != 0 {
			run = 0
		}
		if exclusive {
			sh[tid*items+j] = run
			run += x
		} else {
			run += x
			sh[tid*items+j] = run
		}
	}
	t.SyncThreads()
}
