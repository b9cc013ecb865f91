package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// The device side of SegmentedReduce and the scans by key.

// segReduce is SegmentedReduce: out[g] = in[offs[g]:offs[g+1]] combined
// by op from id, one block per segment (grid-stride over segments), or
// on the cpu agent span segments per work-item. Offsets are clamped to
// [0, len(in)] and an end before its begin is an empty segment, so bad
// offsets read nothing outside in.
func segReduce[T kernel.Shuffleable](t kernel.Thread, in []T, offs []int64, out []T, id T, op int32, span int, warps *[32]T) {
	n, ns := len(in), len(offs)-1
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	if bd == 1 {
		lo := min(t.GlobalX()*span, max(ns, 0))
		hi := min(lo+span, max(ns, 0))
		for g := lo; g < hi; g++ {
			b := int(min(max(offs[g], 0), int64(n)))
			e := int(min(max(offs[g+1], int64(b)), int64(n)))
			out[g] = fold(in[b:e], id, op)
		}
		return
	}
	for g := t.BlockIdx().X; g < ns; g += t.GridDim().X {
		b := int(min(max(offs[g], 0), int64(n)))
		e := int(min(max(offs[g+1], int64(b)), int64(n)))
		acc := id
		for i := b + tid; i < e; i += bd {
			acc = combine(acc, in[i], op)
		}
		acc = blockReduce(t, acc, id, op, warps)
		if tid == 0 {
			out[g] = acc
		}
		t.SyncThreads()
	}
}

// fold is s's elements combined by op from acc, in order.
func fold[T kernel.Shuffleable](s []T, acc T, op int32) T {
	switch op {
	case opMin:
		for _, x := range s {
			if x < acc {
				acc = x
			}
		}
	case opMax:
		for _, x := range s {
			if x > acc {
				acc = x
			}
		}
	default:
		acc += sumOf(s)
	}
	return acc
}

// keyHeads marks where a run of equal keys starts: flags[i] = 1 for
// i == 0 or keys[i] != keys[i-1].
func keyHeads[K number](t kernel.Thread, keys []K, flags []uint8, span int) {
	n := len(keys)
	lo, hi, step := t.GlobalX(), n, t.BlockDim().X*t.GridDim().X
	if span > 0 {
		lo = min(t.GlobalX()*span, n)
		hi = min(lo+span, n)
		step = 1
	}
	for i := lo; i < hi; i += step {
		var f uint8
		if i == 0 || keys[i] != keys[i-1] {
			f = 1
		}
		flags[i] = f
	}
}

// segScanWarp is the inclusive segmented scan of (f, v) over a warp:
// (fa, va) then (fb, vb) is (fa|fb, vb if fb else va+vb).
func segScanWarp[T kernel.Shuffleable](t kernel.Thread, f int32, v T) (int32, T) {
	lane, ws := t.Lane(), t.WarpSize()
	for d := 1; d < ws; d <<= 1 {
		yf := kernel.ShflUp(t, f, d)
		yv := kernel.ShflUp(t, v, d)
		if lane >= d {
			if f == 0 {
				v = yv + v
			}
			f |= yf
		}
	}
	return f, v
}

// blockSegScan is the exclusive segmented scan of (f, v) over the
// block's work-items in order, and the block's total.
func blockSegScan[T kernel.Shuffleable](t kernel.Thread, f int32, v T, warpsF *[32]int32, warpsV *[32]T) (int32, T, int32, T) {
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := t.ThreadIdx().X/ws, t.BlockDim().X/ws
	xf, xv := segScanWarp(t, f, v)
	ef, ev := kernel.ShflUp(t, xf, 1), kernel.ShflUp(t, xv, 1)
	if lane == 0 {
		ef, ev = 0, 0
	}
	if lane == ws-1 {
		warpsF[w], warpsV[w] = xf, xv
	}
	t.SyncThreads()
	if w == 0 {
		var sf int32
		var sv T
		if lane < nw {
			sf, sv = warpsF[lane], warpsV[lane]
		}
		sf, sv = segScanWarp(t, sf, sv)
		if lane < nw {
			warpsF[lane], warpsV[lane] = sf, sv
		}
	}
	t.SyncThreads()
	if w > 0 {
		if ef == 0 {
			ev = warpsV[w-1] + ev
		}
		ef |= warpsF[w-1]
	}
	return ef, ev, warpsF[nw-1], warpsV[nw-1]
}

// Modes of segScanTiles.
const (
	segWhole int32 = iota // scan the tiles, no carry from before
	segUp                 // sums[block], sumHeads[block] = the tiles' segmented total
	segDown               // scan the tiles from carry[block-1]
)

// segScanTiles is a scan by key's pass over the block's tpb tiles of
// tile elements: a segmented scan of in that restarts where heads[i] is
// set, staged through sh and shf as scanTiles does.
func segScanTiles[T kernel.Shuffleable](t kernel.Thread, in []T, heads []uint8, out, sums []T, sumHeads []uint8, carryIn []T, mode int32, exclusive bool, tile, tpb int, sh []T, shf *[2816]uint8, warpsF *[32]int32, warpsV *[32]T) {
	n := len(in)
	bd, tid, b := t.BlockDim().X, t.ThreadIdx().X, t.BlockIdx().X
	base := b * tile * tpb
	var carry T
	var cf int32
	if mode == segDown && b > 0 {
		carry = carryIn[b-1]
	}
	if bd == 1 {
		lo := min(base, n)
		hi := min(base+tile*tpb, n)
		for i := lo; i < hi; i++ {
			x := in[i]
			if heads[i] != 0 {
				carry = 0
				cf = 1
			}
			if mode == segUp {
				carry += x
				continue
			}
			if exclusive {
				out[i] = carry
				carry += x
			} else {
				carry += x
				out[i] = carry
			}
		}
		if mode == segUp {
			sums[b], sumHeads[b] = carry, uint8(cf)
		}
		return
	}
	items := tile / bd
	kt := 0
	if base < n {
		kt = min(tpb, (n-base+tile-1)/tile)
	}
	for k := 0; k < kt; k++ {
		lo := base + k*tile
		for j := 0; j < items; j++ {
			var x T
			var h uint8
			if i := lo + j*bd + tid; i < n {
				x, h = in[i], heads[i]
			}
			sh[j*bd+tid], shf[j*bd+tid] = x, h
		}
		t.SyncThreads()
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
		run := pv
		if pf == 0 {
			run = carry + pv
		}
		if mode != segUp {
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
			for j := 0; j < items; j++ {
				if i := lo + j*bd + tid; i < n {
					out[i] = sh[j*bd+tid]
				}
			}
		}
		if tf != 0 {
			carry = tv
		} else {
			carry += tv
		}
		cf |= tf
		t.SyncThreads()
	}
	if mode == segUp && tid == 0 {
		sums[b], sumHeads[b] = carry, uint8(cf)
	}
}
