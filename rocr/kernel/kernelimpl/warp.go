package kernelimpl

import (
	"math/bits"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/internal/hook"
)

// Op is a warp operation as loop fission runs it: each warp's lanes at
// once, between the stretch that gave its operands and the one that uses
// its result.
type Op uint8

// The warp operations of package kernel.
const (
	OpShfl     Op = iota // Shfl: lane src of the warp, no width
	OpShflIdx            // ShflSync: lane src modulo width
	OpShflUp             // ShflUp, ShflUpSync
	OpShflDown           // ShflDown, ShflDownSync
	OpShflXor            // ShflXor, ShflXorSync
	OpBallot             // Ballot, Any, All (of the negated predicate)
	OpSync               // SyncWarp, SyncWarpMask
	OpReduceAdd
	OpReduceMin
	OpReduceMax
	OpReduceAnd
	OpReduceOr
	OpReduceXor
)

// kind is the name the failures give op.
func (op Op) kind() uint8 {
	switch {
	case op <= OpShflXor:
		return hook.OpShfl
	case op == OpBallot:
		return hook.OpVote
	case op == OpSync:
		return hook.OpSync
	}
	return hook.OpReduce
}

const warpBits = uint32(1<<kernel.CPUWarpSize - 1)

// Where a work-item is when a fissioned warp operation runs.
const (
	gone  = iota // returned, or past the statement without waiting anywhere
	here         // at the operation
	there        // skipped it and waits elsewhere: a mask naming it never completes
)

// Warp is one warp operation of a fissioned kernel, kept in its frame:
// Post stores each work-item's operands, Run completes the operation for
// every warp of the block with the lanes, mask, width and failures of
// kernelimpl.Lockstep's coroutines, and Out holds each work-item's
// result. For votes T is uint64 (a predicate is 0 or 1, the result the
// ballot).
type Warp[T kernel.Shuffleable] struct {
	Out    []T
	val    []T
	mask   []uint32 // the mask's bits in the warp
	arg    []int    // src, delta or lane mask
	width  []int
	st     []uint8
	byFlat []int32 // the work-item at each index of the full block, or -1
	n      int
	full   int
	flat   bool // a one-dimensional full block: work-item i is index i
}

// Begin readies w for block b before the work-items post: none is at the
// operation yet.
func (w *Warp[T]) Begin(b *kernel.Block) {
	n := b.Threads()
	d := b.Thread(0).BlockDim()
	full := d.X * d.Y * d.Z
	if cap(w.st) < n {
		w.Out, w.val, w.arg, w.width = make([]T, n), make([]T, n), make([]int, n), make([]int, n)
		w.mask, w.st = make([]uint32, n), make([]uint8, n)
	}
	w.Out, w.val, w.arg, w.width, w.mask, w.st = w.Out[:n], w.val[:n], w.arg[:n], w.width[:n], w.mask[:n], w.st[:n]
	clear(w.st)
	w.n, w.full = n, full
	w.flat = d.Y == 1 && d.Z == 1
	if w.flat {
		return
	}
	if cap(w.byFlat) < full {
		w.byFlat = make([]int32, full)
	}
	w.byFlat = w.byFlat[:full]
	for i := range w.byFlat {
		w.byFlat[i] = -1
	}
	for i := 0; i < n; i++ {
		w.byFlat[hook.Flat(b, i)] = int32(i)
	}
}

// flatOf is work-item i's index in the full block.
func (w *Warp[T]) flatOf(b *kernel.Block, i int) int {
	if w.flat {
		return i
	}
	return hook.Flat(b, i)
}

// item is the work-item at index f of the full block, or -1.
func (w *Warp[T]) item(f int) int {
	if w.flat {
		if f < w.n {
			return f
		}
		return -1
	}
	return int(w.byFlat[f])
}

// Post is work-item i at the operation with its operands (arg and width
// for shuffles): it fails as the coroutines do on a shuffle width that is
// not a power of two up to the warp and on a mask without the caller's
// lane.
func (w *Warp[T]) Post(b *kernel.Block, i int, op Op, mask uint64, v T, arg, width int) {
	if op != OpShfl && op <= OpShflXor && (width < 1 || width > kernel.CPUWarpSize || width&(width-1) != 0) {
		panic(hook.WarpError(b, hook.WarpWidth, w.flatOf(b, i), op.kind(), mask, width))
	}
	m := uint32(mask) & warpBits
	if lane := w.flatOf(b, i) % kernel.CPUWarpSize; m&(1<<lane) == 0 {
		panic(hook.WarpError(b, hook.WarpMaskLane, w.flatOf(b, i), op.kind(), mask, width))
	}
	w.val[i], w.mask[i], w.arg[i], w.width[i], w.st[i] = v, m, arg, width, here
}

// Elsewhere says work-item i skipped the operation and waits at another
// place, where the coroutines would find it: a mask naming it fails.
func (w *Warp[T]) Elsewhere(i int) { w.st[i] = there }

// Run completes the operation op for every warp of block b, as the
// coroutines do: the lanes that take part are those of the mask less the
// lanes that do not exist or are gone; a lane of the mask that waits
// elsewhere, or at the operation with another mask, fails it.
func (w *Warp[T]) Run(b *kernel.Block, op Op) {
	for base := 0; base < w.full; base += kernel.CPUWarpSize {
		var at, away uint32
		var vals [kernel.CPUWarpSize]T
		var items [kernel.CPUWarpSize]int32
		for j := 0; j < kernel.CPUWarpSize && base+j < w.full; j++ {
			i := w.item(base + j)
			items[j] = int32(i)
			if i < 0 {
				continue
			}
			switch w.st[i] {
			case here:
				at |= 1 << j
				vals[j] = w.val[i]
			case there:
				away |= 1 << j
			}
		}
		if at == 0 {
			continue
		}
		if !w.ready(at, away, &items) {
			for r := at; r != 0; r &= r - 1 {
				j := bits.TrailingZeros32(r)
				if m := w.mask[items[j]]; !w.readyLane(m, at, away, &items) {
					panic(hook.WarpError(b, hook.WarpNever, base+j, op.kind(), uint64(m), 0))
				}
			}
		}
		w.complete(op, base, at, &vals, &items)
	}
}

// ready reports whether every lane of at can complete: the usual case,
// one mask for all of them, is checked once.
func (w *Warp[T]) ready(at, away uint32, items *[kernel.CPUWarpSize]int32) bool {
	m := w.mask[items[bits.TrailingZeros32(at)]]
	for r := at; r != 0; r &= r - 1 {
		if w.mask[items[bits.TrailingZeros32(r)]] != m {
			for q := at; q != 0; q &= q - 1 {
				if !w.readyLane(w.mask[items[bits.TrailingZeros32(q)]], at, away, items) {
					return false
				}
			}
			return true
		}
	}
	return m&away == 0
}

// readyLane reports whether a lane at the operation with mask m can
// complete: no lane of m waits elsewhere or with another mask.
func (w *Warp[T]) readyLane(m, at, away uint32, items *[kernel.CPUWarpSize]int32) bool {
	if m&away != 0 {
		return false
	}
	for q := m & at; q != 0; q &= q - 1 {
		if w.mask[items[bits.TrailingZeros32(q)]] != m {
			return false
		}
	}
	return true
}

// complete gives each lane of at its result, its mask's lanes that are at
// the operation taking part.
func (w *Warp[T]) complete(op Op, base int, at uint32, vals *[kernel.CPUWarpSize]T, items *[kernel.CPUWarpSize]int32) {
	var red [kernel.CPUWarpSize]T
	redMask := uint32(0) // the mask red was computed for
	for r := at; r != 0; r &= r - 1 {
		lane := bits.TrailingZeros32(r)
		i := items[lane]
		eff := w.mask[i] & at
		own := w.val[i]
		src, width := -1, w.width[i]
		switch op {
		case OpShfl:
			src = w.arg[i]
		case OpShflIdx:
			src = lane&^(width-1) | w.arg[i]&(width-1)
		case OpShflUp:
			if d := w.arg[i]; d >= 0 && lane-d >= lane&^(width-1) {
				src = lane - d
			}
		case OpShflDown:
			if d := w.arg[i]; d >= 0 && lane+d < lane&^(width-1)+width {
				src = lane + d
			}
		case OpShflXor:
			if j := lane ^ w.arg[i]; j >= 0 && j < lane&^(width-1)+width {
				src = j
			}
		case OpBallot:
			var out uint64
			for q := eff; q != 0; q &= q - 1 {
				if j := bits.TrailingZeros32(q); toBits(vals[j]) != 0 {
					out |= 1 << j
				}
			}
			w.Out[i] = fromBits[T](out)
			continue
		case OpSync:
			continue
		default:
			if eff != redMask {
				red, redMask = reduceWarp(op, vals, w.mask[i], eff), eff
			}
			w.Out[i] = red[lane]
			continue
		}
		w.Out[i] = own
		if src >= 0 && src < kernel.CPUWarpSize && eff&(1<<src) != 0 {
			w.Out[i] = vals[src]
		}
	}
}

// reduceWarp combines the values of the lanes of eff as the coroutines
// and the generated C++ do: over the full warp a butterfly, each lane its
// own result; over part of it a fold in lane order, the same in each.
func reduceWarp[T kernel.Shuffleable](op Op, vals *[kernel.CPUWarpSize]T, mask, eff uint32) [kernel.CPUWarpSize]T {
	var x [kernel.CPUWarpSize]T
	if mask == warpBits && eff == warpBits {
		x = *vals
		for k := kernel.CPUWarpSize / 2; k > 0; k >>= 1 {
			var y [kernel.CPUWarpSize]T
			for i := range y {
				y[i] = combine(op, x[i], x[i^k])
			}
			x = y
		}
		return x
	}
	var r T
	first := true
	for q := eff; q != 0; q &= q - 1 {
		v := vals[bits.TrailingZeros32(q)]
		if first {
			r, first = v, false
		} else {
			r = combine(op, r, v)
		}
	}
	for i := range x {
		x[i] = r
	}
	return x
}

// combine is one step of a warp reduction: for floats, min(a, b) is
// b < a ? b : a and max(a, b) b > a ? b : a; the bitwise operations act
// on the integer types only (the SDK's constraint), on their bits.
func combine[T kernel.Shuffleable](op Op, a, b T) T {
	switch op {
	case OpReduceAdd:
		return a + b
	case OpReduceMin:
		if b < a {
			return b
		}
		return a
	case OpReduceMax:
		if b > a {
			return b
		}
		return a
	case OpReduceAnd:
		return fromBits[T](toBits(a) & toBits(b))
	case OpReduceOr:
		return fromBits[T](toBits(a) | toBits(b))
	}
	return fromBits[T](toBits(a) ^ toBits(b))
}

func toBits[T kernel.Shuffleable](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

func fromBits[T kernel.Shuffleable](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// Vote is a predicate as a vote posts it.
func Vote(pred bool) uint64 {
	if pred {
		return 1
	}
	return 0
}

var coroutines atomic.Bool

// SetCoroutines makes kernels that have loop fission run as coroutines
// instead (on), or by their fission again (off), and returns the former
// setting: tests compare the two.
func SetCoroutines(on bool) bool { return coroutines.Swap(on) }

// Coroutines reports whether SetCoroutines is on: generated code asks it
// once per work-group.
func Coroutines() bool { return coroutines.Load() }
