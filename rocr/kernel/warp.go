package kernel

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/kernel/internal/hook"
)

// Shuffleable is what warp shuffles move: 32- and 64-bit integers and
// floats.
type Shuffleable interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64 | ~int | ~uint
}

// Bitwise is what the bitwise warp reductions act on.
type Bitwise interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~int | ~uint
}

// FullMask names every lane of the warp: the mask of the warp operations
// without one. On NVIDIA it is 0xffffffff, on a wave64 AMD GPU all 64 bits.
const FullMask = ^uint64(0)

// The warp operations, so the scheduler can tell a lane at one from a lane
// at another.
const (
	opSync   = hook.OpSync
	opShfl   = hook.OpShfl
	opVote   = hook.OpVote
	opReduce = hook.OpReduce
)

var opNames = [...]string{opSync: "SyncWarp", opShfl: "a shuffle", opVote: "a vote", opReduce: "a reduction"}

// warpState is a lockstep block's warp exchange: what each work-item
// (by its index in the full block) posted at the warp operation it waits
// at, and what the scheduler handed it when the operation completed.
type warpState struct {
	val    []uint64 // posted values
	mask   []uint32 // the masks they were posted with, in the warp's lanes
	op     []uint8
	snap   []uint64 // the values of the lanes taking part, at completion
	eff    []uint32 // the lanes that took part, at completion
	byFlat []int32  // the group's work-item at each index of the block, or -1
}

func (w *warpState) grow(full int) {
	*w = warpState{val: make([]uint64, full), mask: make([]uint32, full), op: make([]uint8, full),
		snap: make([]uint64, full), eff: make([]uint32, full), byFlat: make([]int32, full)}
}

func (w *warpState) reset() {
	for i := range w.byFlat {
		w.byFlat[i] = -1
	}
}

// warpBits is the mask of a warp's CPUWarpSize lanes.
const warpBits = uint32(1<<CPUWarpSize - 1)

// post publishes v for the calling work-item's warp operation op over the
// lanes of mask, and waits until every lane of the mask that has not
// returned has posted the same operation with the same mask. It returns
// the lanes that took part and the warp's first work-item; the values are
// in b.warps.snap from there.
func post(l *lane, v uint64, mask uint64, op uint8) (eff uint32, base int) {
	b := l.b
	if l.co == nil {
		l.sync(evWarp) // panics with the reason
	}
	lane := l.flat % CPUWarpSize
	m := uint32(mask) & warpBits
	if m&(1<<lane) == 0 {
		panic(errMaskLane(b.name, l.flat, op, mask))
	}
	w := &b.warps
	w.val[l.flat], w.mask[l.flat], w.op[l.flat] = v, m, op
	l.sync(evWarp)
	return w.eff[l.flat], l.flat - lane
}

// releaseWarps completes every warp operation whose lanes have all
// arrived: those of its mask, less the lanes that do not exist in the
// group or have returned (a GPU's exited lanes). It fails when nothing can
// complete: lanes of a mask wait at a barrier, or at another operation.
func (b *Block) releaseWarps() error {
	w := &b.warps
	released := false
	for i := 0; i < b.n; i++ {
		c := b.lanes[i].co
		if c.state != evWarp {
			continue
		}
		flat := b.lanes[i].flat
		base := flat - flat%CPUWarpSize
		m := w.mask[flat]
		eff, ready := uint32(0), true
		for r := m; r != 0; r &= r - 1 {
			j := base + bits.TrailingZeros32(r)
			if j >= len(w.byFlat) || w.byFlat[j] < 0 {
				continue // no such work-item in this group
			}
			o := b.lanes[w.byFlat[j]].co
			if o.state == evDone {
				continue
			}
			if o.state != evWarp || w.mask[j] != m {
				ready = false
				break
			}
			if w.op[j] != w.op[flat] {
				return fmt.Errorf("kernel %s: divergent warp operations: work-item %d is at %s and work-item %d at %s, with the same mask %#x", b.name, flat, opNames[w.op[flat]], j, opNames[w.op[j]], m)
			}
			eff |= 1 << (j - base)
		}
		if !ready {
			continue
		}
		for r := eff; r != 0; r &= r - 1 {
			j := base + bits.TrailingZeros32(r)
			w.snap[j], w.eff[j] = w.val[j], eff
			b.lanes[w.byFlat[j]].co.state = -1
		}
		released = true
	}
	if released {
		return nil
	}
	for i := 0; i < b.n; i++ {
		if c := b.lanes[i].co; c.state == evWarp {
			flat := b.lanes[i].flat
			return errNeverCompletes(b.name, flat, w.op[flat], w.mask[flat])
		}
	}
	return nil
}

// from is lane src's value of the caller's operation, or own where src
// did not take part.
func from(l *lane, eff uint32, base, src int, own uint64) uint64 {
	if src < 0 || src >= CPUWarpSize || eff&(1<<src) == 0 {
		return own
	}
	return l.b.warps.snap[base+src]
}

func toBits[T Shuffleable](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

func fromBits[T Shuffleable](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// checkWidth panics on a shuffle width that is not a power of two from 1
// to the warp's size (undefined in CUDA).
func checkWidth(l *lane, width int) {
	if width < 1 || width > CPUWarpSize || width&(width-1) != 0 {
		panic(errWidth(l.b.name, width))
	}
}

// The failures of warp operations, the same from coroutines and from
// loop fission (kernelimpl.Warp, through hook.WarpError).

func errMaskLane(name string, flat int, op uint8, mask uint64) error {
	return fmt.Errorf("kernel %s: work-item %d calls %s with mask %#x, which does not name its lane %d", name, flat, opNames[op], mask, flat%CPUWarpSize)
}

func errWidth(name string, width int) error {
	return fmt.Errorf("kernel %s: shuffle width %d: want a power of two from 1 to %d", name, width, CPUWarpSize)
}

func errNeverCompletes(name string, flat int, op uint8, mask uint32) error {
	return fmt.Errorf("kernel %s: warp operation never completes: work-item %d is at %s with mask %#x, and a lane the mask names waits at a barrier or at an operation with another mask", name, flat, opNames[op], mask)
}

// warpError is hook.WarpError: failure what (hook.WarpMaskLane,
// WarpWidth, WarpNever) of work-item flat of b at warp operation op.
func warpError(b any, what, flat int, op uint8, mask uint64, width int) error {
	name := b.(*Block).name
	switch what {
	case hook.WarpMaskLane:
		return errMaskLane(name, flat, op, mask)
	case hook.WarpWidth:
		return errWidth(name, width)
	}
	return errNeverCompletes(name, flat, op, uint32(mask))
}

// ShflSync returns v of lane src of the caller's width-lane section of
// the warp (__shfl_sync(mask, v, src, width)): src modulo width. Every
// lane of mask must call it; a lane outside mask gives the caller's own v.
func ShflSync[T Shuffleable](t Thread, mask uint64, v T, src, width int) T {
	checkWidth(t.l, width)
	own := toBits(v)
	eff, base := post(t.l, own, mask, opShfl)
	lane := t.Lane()
	return fromBits[T](from(t.l, eff, base, lane&^(width-1)|src&(width-1), own))
}

// ShflUpSync returns v of the lane delta below the caller's, or the
// caller's own v where that lane is before the caller's width-lane section
// or delta is negative (__shfl_up_sync).
func ShflUpSync[T Shuffleable](t Thread, mask uint64, v T, delta, width int) T {
	checkWidth(t.l, width)
	own := toBits(v)
	eff, base := post(t.l, own, mask, opShfl)
	lane := t.Lane()
	j := lane - delta
	if delta < 0 || j < lane&^(width-1) {
		return v
	}
	return fromBits[T](from(t.l, eff, base, j, own))
}

// ShflDownSync returns v of the lane delta above the caller's, or the
// caller's own v where that lane is past the caller's width-lane section
// or delta is negative (__shfl_down_sync).
func ShflDownSync[T Shuffleable](t Thread, mask uint64, v T, delta, width int) T {
	checkWidth(t.l, width)
	own := toBits(v)
	eff, base := post(t.l, own, mask, opShfl)
	lane := t.Lane()
	j := lane + delta
	if delta < 0 || j >= lane&^(width-1)+width {
		return v
	}
	return fromBits[T](from(t.l, eff, base, j, own))
}

// ShflXorSync returns v of lane (Lane() ^ laneMask), or the caller's own v
// where that lane is past the caller's width-lane section
// (__shfl_xor_sync): earlier sections may be read, later ones not.
func ShflXorSync[T Shuffleable](t Thread, mask uint64, v T, laneMask, width int) T {
	checkWidth(t.l, width)
	own := toBits(v)
	eff, base := post(t.l, own, mask, opShfl)
	lane := t.Lane()
	j := lane ^ laneMask
	if j < 0 || j >= lane&^(width-1)+width {
		return v
	}
	return fromBits[T](from(t.l, eff, base, j, own))
}

// Shfl returns v of lane src of the warp, or the caller's own v where src
// is outside the warp: ShflSync over the full warp, but for that.
func Shfl[T Shuffleable](t Thread, v T, src int) T {
	own := toBits(v)
	eff, base := post(t.l, own, FullMask, opShfl)
	return fromBits[T](from(t.l, eff, base, src, own))
}

// ShflDown is ShflDownSync(t, FullMask, v, delta, t.WarpSize()).
func ShflDown[T Shuffleable](t Thread, v T, delta int) T {
	return ShflDownSync(t, FullMask, v, delta, CPUWarpSize)
}

// ShflUp is ShflUpSync(t, FullMask, v, delta, t.WarpSize()).
func ShflUp[T Shuffleable](t Thread, v T, delta int) T {
	return ShflUpSync(t, FullMask, v, delta, CPUWarpSize)
}

// ShflXor is ShflXorSync(t, FullMask, v, laneMask, t.WarpSize()).
func ShflXor[T Shuffleable](t Thread, v T, laneMask int) T {
	return ShflXorSync(t, FullMask, v, laneMask, CPUWarpSize)
}

// BallotSync returns a mask with bit i set where lane i of mask took part
// and its pred is true (__ballot_sync(mask, pred) & mask).
func BallotSync(t Thread, mask uint64, pred bool) uint64 {
	var v uint64
	if pred {
		v = 1
	}
	eff, base := post(t.l, v, mask, opVote)
	var out uint64
	for r := eff; r != 0; r &= r - 1 {
		i := bits.TrailingZeros32(r)
		if t.l.b.warps.snap[base+i] != 0 {
			out |= 1 << i
		}
	}
	return out
}

// AnySync reports whether pred is true on any lane of mask (__any_sync).
func AnySync(t Thread, mask uint64, pred bool) bool { return BallotSync(t, mask, pred) != 0 }

// AllSync reports whether pred is true on every lane of mask
// (__all_sync).
func AllSync(t Thread, mask uint64, pred bool) bool { return BallotSync(t, mask, !pred) == 0 }

// Ballot is BallotSync(t, FullMask, pred).
func Ballot(t Thread, pred bool) uint64 { return BallotSync(t, FullMask, pred) }

// Any is AnySync(t, FullMask, pred).
func Any(t Thread, pred bool) bool { return AnySync(t, FullMask, pred) }

// All is AllSync(t, FullMask, pred).
func All(t Thread, pred bool) bool { return AllSync(t, FullMask, pred) }

// reduce combines v over the lanes of mask as the generated C++ does, so
// every agent gives the same bits: over the full warp a butterfly (at step
// k each lane takes op(its value, lane^k's), k = 16, 8, 4, 2, 1), over a
// part of it a fold in lane order (op(op(first, second), third) ...).
func reduce[T Shuffleable](t Thread, mask uint64, v T, op func(a, b T) T) T {
	eff, base := post(t.l, toBits(v), mask, opReduce)
	snap := t.l.b.warps.snap[base:]
	if uint32(mask)&warpBits == warpBits && eff == warpBits {
		var x, y [CPUWarpSize]T
		for i := range x {
			x[i] = fromBits[T](snap[i])
		}
		for k := CPUWarpSize / 2; k > 0; k >>= 1 {
			for i := range y {
				y[i] = op(x[i], x[i^k])
			}
			x = y
		}
		return x[t.Lane()]
	}
	var r T
	first := true
	for m := eff; m != 0; m &= m - 1 {
		x := fromBits[T](snap[bits.TrailingZeros32(m)])
		if first {
			r, first = x, false
		} else {
			r = op(r, x)
		}
	}
	return r
}

// ReduceAddSync is the sum of v over the lanes of mask, given to each of
// them (__reduce_add_sync, for floats too: see reduce for the order).
func ReduceAddSync[T Shuffleable](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T { return a + b })
}

// ReduceMinSync is the least v over the lanes of mask (__reduce_min_sync);
// for floats, min(a, b) is b < a ? b : a, as C's fmin is not.
func ReduceMinSync[T Shuffleable](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T {
		if b < a {
			return b
		}
		return a
	})
}

// ReduceMaxSync is the greatest v over the lanes of mask
// (__reduce_max_sync); for floats, max(a, b) is b > a ? b : a.
func ReduceMaxSync[T Shuffleable](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T {
		if b > a {
			return b
		}
		return a
	})
}

// ReduceAndSync is v & ... over the lanes of mask (__reduce_and_sync).
func ReduceAndSync[T Bitwise](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T { return a & b })
}

// ReduceOrSync is v | ... over the lanes of mask (__reduce_or_sync).
func ReduceOrSync[T Bitwise](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T { return a | b })
}

// ReduceXorSync is v ^ ... over the lanes of mask (__reduce_xor_sync).
func ReduceXorSync[T Bitwise](t Thread, mask uint64, v T) T {
	return reduce(t, mask, v, func(a, b T) T { return a ^ b })
}

// SyncWarpMask waits for the lanes of mask (__syncwarp(mask)).
func SyncWarpMask(t Thread, mask uint64) { post(t.l, 0, mask, opSync) }
