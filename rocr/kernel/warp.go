package kernel

import "unsafe"

// Shuffleable is what warp shuffles move: 32- and 64-bit integers and
// floats.
type Shuffleable interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64 | ~int | ~uint
}

// post publishes v in the calling work-item's exchange slot and waits for
// its warp. It returns the half of the exchange this operation uses and
// the warp's first work-item.
func post(l *lane, v uint64) (half, base int) {
	b, c := l.b, l.co
	if c == nil {
		l.sync(evWarp) // panics with the reason
	}
	half = int(c.gen&1) * (len(b.xch) / 2)
	b.xch[half+l.flat], b.xgen[half+l.flat] = v, c.gen
	l.sync(evWarp)
	return half, l.flat - l.flat%CPUWarpSize
}

// peek is what work-item i of the block posted in the caller's current
// warp operation; ok is false where i is outside the block or took no part.
func peek(l *lane, half, i int) (v uint64, ok bool) {
	b := l.b
	if i < 0 || i >= len(b.xch)/2 {
		return 0, false
	}
	return b.xch[half+i], b.xgen[half+i] == l.co.gen
}

// exchange publishes v for the calling work-item's warp, waits for the
// warp, and returns the value lane src of the warp published (its own
// value when src is outside the warp or inactive).
func exchange(l *lane, v uint64, src int) uint64 {
	half, base := post(l, v)
	out := v
	if src >= 0 && src < CPUWarpSize {
		if w, ok := peek(l, half, base+src); ok {
			out = w
		}
	}
	l.co.gen++
	return out
}

func toBits[T Shuffleable](v T) uint64 {
	var u uint64
	*(*T)(unsafe.Pointer(&u)) = v
	return u
}

func fromBits[T Shuffleable](u uint64) T { return *(*T)(unsafe.Pointer(&u)) }

// Shfl returns v of lane src of the warp (__shfl_sync with a full mask).
func Shfl[T Shuffleable](t Thread, v T, src int) T {
	return fromBits[T](exchange(t.l, toBits(v), src))
}

// ShflDown returns v of the lane delta above the caller's, or the caller's
// own v past the warp's end (__shfl_down_sync).
func ShflDown[T Shuffleable](t Thread, v T, delta int) T {
	return fromBits[T](exchange(t.l, toBits(v), t.Lane()+delta))
}

// ShflUp returns v of the lane delta below the caller's, or the caller's
// own v before the warp's start (__shfl_up_sync).
func ShflUp[T Shuffleable](t Thread, v T, delta int) T {
	return fromBits[T](exchange(t.l, toBits(v), t.Lane()-delta))
}

// ShflXor returns v of lane (Lane() ^ mask) (__shfl_xor_sync).
func ShflXor[T Shuffleable](t Thread, v T, mask int) T {
	return fromBits[T](exchange(t.l, toBits(v), t.Lane()^mask))
}

// Ballot returns a mask with bit i set when lane i's pred is true, over the
// warp's active lanes (__ballot_sync).
func Ballot(t Thread, pred bool) uint64 {
	var v uint64
	if pred {
		v = 1
	}
	half, base := post(t.l, v)
	var mask uint64
	for i := 0; i < CPUWarpSize; i++ {
		if w, ok := peek(t.l, half, base+i); ok && w != 0 {
			mask |= 1 << i
		}
	}
	t.l.co.gen++
	return mask
}

// Any reports whether pred is true on any active lane of the warp
// (__any_sync).
func Any(t Thread, pred bool) bool { return Ballot(t, pred) != 0 }

// All reports whether pred is true on every active lane of the warp
// (__all_sync).
func All(t Thread, pred bool) bool { return Ballot(t, !pred) == 0 }
