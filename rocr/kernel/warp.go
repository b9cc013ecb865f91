package kernel

import "unsafe"

// Shuffleable is what warp shuffles move: 32- and 64-bit integers and
// floats.
type Shuffleable interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64 | ~int | ~uint
}

// exchange publishes v for the calling work-item's warp, waits for the
// warp, and returns the value work-item src of the warp published (its
// own value when src is outside the warp or inactive).
func exchange(l *lane, v uint64, src int) uint64 {
	b, c := l.b, l.co
	if c == nil {
		l.sync(evWarp) // panics with the reason
	}
	n := len(b.xch) / 2
	slot := int(c.gen&1)*n + l.flat
	b.xch[slot], b.xgen[slot] = v, c.gen
	l.sync(evWarp)
	base := l.flat - l.flat%CPUWarpSize
	s := base + src
	var out uint64 = v
	if src >= 0 && src < CPUWarpSize && s < n {
		if o := int(c.gen&1)*n + s; b.xgen[o] == c.gen {
			out = b.xch[o]
		}
	}
	c.gen++
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
	l := t.l
	b, c := l.b, l.co
	if c == nil {
		l.sync(evWarp)
	}
	n := len(b.xch) / 2
	var v uint64
	if pred {
		v = 1
	}
	slot := int(c.gen&1)*n + l.flat
	b.xch[slot], b.xgen[slot] = v, c.gen
	l.sync(evWarp)
	base := l.flat - l.flat%CPUWarpSize
	var mask uint64
	for i := 0; i < CPUWarpSize && base+i < n; i++ {
		if o := int(c.gen&1)*n + base + i; b.xgen[o] == c.gen && b.xch[o] != 0 {
			mask |= 1 << i
		}
	}
	c.gen++
	return mask
}

// Any reports whether pred is true on any active lane of the warp
// (__any_sync).
func Any(t Thread, pred bool) bool { return Ballot(t, pred) != 0 }

// All reports whether pred is true on every active lane of the warp
// (__all_sync).
func All(t Thread, pred bool) bool { return Ballot(t, !pred) == 0 }
