package prim

//go:generate go run ./internal/gentypes -o kernels_types.go
//go:generate go run ../../cmd/hipgo-gen -go . -o kernels_gen.go

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// The device side of the primitives: generic device functions, written
// once; kernels_types.go (internal/gentypes) wraps them in one
// //hipgo:kernel per element type, which hipgo-gen translates. A launch
// on a GPU runs blocks of many work-items over striped tiles (coalesced);
// on the cpu agent blocks of one work-item over contiguous spans, so the
// same kernels take their barrier-free sequential branch there.

// Reduction operations (Op's values).
const (
	opSum int32 = iota
	opMin
	opMax
)

// Element-wise operations (UnaryOp's and BinaryOp's values).
const (
	opNeg int32 = iota
	opAbs
	opSquare
	opScale
	opAddScalar
)

const (
	opAdd int32 = iota
	opSub
	opMul
	opDiv
	opMinimum
	opMaximum
)

// Key kinds: how a key's bits become an unsigned number of the same order.
const (
	kindUnsigned int32 = iota
	kindSigned
	kindFloat32
	kindFloat64
)

// number is every element type a primitive instantiates; the kernels'
// generic functions take their constraint from it.
type number interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// combine is a op b.
func combine[T kernel.Shuffleable](a, b T, op int32) T {
	switch op {
	case opMin:
		if b < a {
			return b
		}
		return a
	case opMax:
		if b > a {
			return b
		}
		return a
	}
	return a + b
}

// sumOf is the sum of s, four sums in flight: a sequential sum waits
// for each add to finish.
func sumOf[T kernel.Shuffleable](s []T) T {
	var a0, a1, a2, a3 T
	i := 0
	for ; i+4 <= len(s); i += 4 {
		a0 += s[i]
		a1 += s[i+1]
		a2 += s[i+2]
		a3 += s[i+3]
	}
	for ; i < len(s); i++ {
		a0 += s[i]
	}
	return a0 + a1 + a2 + a3
}

// blockReduce combines v over the block; work-item 0 gets the result.
// The block is one work-item (the cpu agent) or a multiple of the warp.
func blockReduce[T kernel.Shuffleable](t kernel.Thread, v, id T, op int32, warps *[32]T) T {
	bd := t.BlockDim().X
	if bd == 1 {
		return v
	}
	ws := t.WarpSize()
	for off := ws / 2; off > 0; off >>= 1 {
		v = combine(v, kernel.ShflDown(t, v, off), op)
	}
	if bd <= ws {
		return v
	}
	lane, w := t.Lane(), t.ThreadIdx().X/ws
	if lane == 0 {
		warps[w] = v
	}
	t.SyncThreads()
	if w == 0 {
		v = id
		if lane < bd/ws {
			v = warps[lane]
		}
		for off := ws / 2; off > 0; off >>= 1 {
			v = combine(v, kernel.ShflDown(t, v, off), op)
		}
	}
	return v
}

// tileSum is the first pass of a scan: sums[block] = the sum of the
// block's tpb tiles of tile elements, striped over its work-items.
func tileSum[T kernel.Shuffleable](t kernel.Thread, in, sums []T, tile, tpb int, warps *[32]T) {
	lo := min(t.BlockIdx().X*tile*tpb, len(in))
	hi := min(lo+tile*tpb, len(in))
	var acc T
	if t.BlockDim().X == 1 {
		acc = sumOf(in[lo:hi])
	} else {
		for i := lo + t.ThreadIdx().X; i < hi; i += t.BlockDim().X {
			acc += in[i]
		}
	}
	acc = blockReduce(t, acc, 0, opSum, warps)
	if t.ThreadIdx().X == 0 {
		sums[t.BlockIdx().X] = acc
	}
}

// blockScan returns the exclusive prefix of v over the block's work-items
// in order, and the block's total. The block is a multiple of the warp.
func blockScan[T kernel.Shuffleable](t kernel.Thread, v T, warps *[32]T) (T, T) {
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := t.ThreadIdx().X/ws, t.BlockDim().X/ws
	x := v
	for d := 1; d < ws; d <<= 1 {
		y := kernel.ShflUp(t, x, d)
		if lane >= d {
			x += y
		}
	}
	e := kernel.ShflUp(t, x, 1)
	if lane == 0 {
		e = 0
	}
	if lane == ws-1 {
		warps[w] = x
	}
	t.SyncThreads()
	if w == 0 {
		var s T
		if lane < nw {
			s = warps[lane]
		}
		for d := 1; d < ws; d <<= 1 {
			y := kernel.ShflUp(t, s, d)
			if lane >= d {
				s += y
			}
		}
		if lane < nw {
			warps[lane] = s
		}
	}
	t.SyncThreads()
	if w > 0 {
		e += warps[w-1]
	}
	return e, warps[nw-1]
}

// scanTiles is the last pass of a scan (and the whole scan of a small
// input): the block scans its tpb tiles in order, starting from
// offs[block] (useOffs) or zero. A tile is staged in sh so that loads and
// stores are coalesced and each work-item scans consecutive elements.
func scanTiles[T kernel.Shuffleable](t kernel.Thread, in, out, offs []T, useOffs, exclusive bool, tile, tpb int, sh []T, warps *[32]T) {
	n := len(in)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	base := t.BlockIdx().X * tile * tpb
	var carry T
	if useOffs {
		carry = offs[t.BlockIdx().X]
	}
	if bd == 1 {
		lo := min(base, n)
		hi := min(base+tile*tpb, n)
		src, dst := in[lo:hi], out[lo:hi]
		if exclusive {
			for i, x := range src {
				dst[i] = carry
				carry += x
			}
		} else {
			for i, x := range src {
				carry += x
				dst[i] = carry
			}
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
			if i := lo + j*bd + tid; i < n {
				x = in[i]
			}
			sh[j*bd+tid] = x
		}
		t.SyncThreads()
		var sum T
		for j := 0; j < items; j++ {
			sum += sh[tid*items+j]
		}
		pre, total := blockScan(t, sum, warps)
		run := carry + pre
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
		for j := 0; j < items; j++ {
			if i := lo + j*bd + tid; i < n {
				out[i] = sh[j*bd+tid]
			}
		}
		carry += total
		t.SyncThreads()
	}
}

// ordered maps a key to an unsigned number of the same order (the
// complement for descending): unsigned keys as they are, signed ones with
// the sign bit flipped, floats by their sign: negative ones complemented,
// others with the sign bit set, so -NaN < -Inf < ... < +Inf < NaN, with
// -0 made +0 so that the two are equal. width is the key's bits.
func ordered[K number](k K, kind int32, width int, desc bool) uint64 {
	var u uint64
	switch kind {
	case kindFloat32:
		b := math.Float32bits(float32(k))
		if b == 0x80000000 {
			b = 0
		}
		if b&0x80000000 != 0 {
			b = ^b
		} else {
			b |= 0x80000000
		}
		u = uint64(b)
	case kindFloat64:
		b := math.Float64bits(float64(k))
		if b == 0x8000000000000000 {
			b = 0
		}
		if b&0x8000000000000000 != 0 {
			b = ^b
		} else {
			b |= 0x8000000000000000
		}
		u = b
	case kindSigned:
		u = (uint64(int64(k)) ^ (uint64(1) << (width - 1))) & (^uint64(0) >> (64 - width))
	default:
		u = uint64(k) & (^uint64(0) >> (64 - width))
	}
	if desc {
		u = ^u & (^uint64(0) >> (64 - width))
	}
	return u
}

// popc is the number of ones in x.
func popc(x uint64) int {
	x -= (x >> 1) & 0x5555555555555555
	x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f
	return int((x * 0x0101010101010101) >> 56)
}

// sortCount is a radix pass's histogram: counts[d*blocks+block] = how
// many of the block's tile of keys have digit d (bits bits at shift).
func sortCount[K number](t kernel.Thread, keys []K, counts []uint32, shift, bits int, kind int32, width int, desc bool, tile int, bins *[256]uint32) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	b, nb := t.BlockIdx().X, t.GridDim().X
	nd := 1 << bits
	mask := uint64(nd - 1)
	for d := tid; d < nd; d += bd {
		bins[d] = 0
	}
	t.SyncThreads()
	lo := b * tile
	hi := min(lo+tile, len(keys))
	if bd == 1 {
		for i := lo; i < hi; i++ {
			bins[(ordered(keys[i], kind, width, desc)>>shift)&mask]++
		}
	} else {
		for i := lo + tid; i < hi; i += bd {
			kernel.AtomicAdd(&bins[(ordered(keys[i], kind, width, desc)>>shift)&mask], 1)
		}
	}
	t.SyncThreads()
	for d := tid; d < nd; d += bd {
		counts[d*nb+b] = bins[d]
	}
}

// sortScatter is a radix pass's stable scatter: the block's tile of keys
// (and values, with pairs) goes to the places offs (the scanned counts)
// gives their digits, in input order. A GPU block takes the tile one row
// of work-items at a time: the lanes of a warp with equal digits find
// each other by ballots over the digit's bits, and the warps' counts per
// digit, scanned, place each row after the rows before it.
func sortScatter[K number, V any](t kernel.Thread, keysIn, keysOut []K, valsIn, valsOut []V, pairs bool, offs []uint32, shift, bits int, kind int32, width int, desc bool, tile int,
	run *[256]uint32, cnt, off *[4096]uint32) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	b, nb := t.BlockIdx().X, t.GridDim().X
	nd := 1 << bits
	mask := uint64(nd - 1)
	lo := b * tile
	hi := min(lo+tile, len(keysIn))
	if bd == 1 {
		for d := 0; d < nd; d++ {
			run[d] = offs[d*nb+b]
		}
		for i := lo; i < hi; i++ {
			k := keysIn[i]
			d := (ordered(k, kind, width, desc) >> shift) & mask
			p := run[d]
			run[d] = p + 1
			keysOut[p] = k
			if pairs {
				valsOut[p] = valsIn[i]
			}
		}
		return
	}
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := tid/ws, bd/ws
	for d := tid; d < nd; d += bd {
		run[d] = offs[d*nb+b]
		for x := 0; x < nw; x++ {
			cnt[x*256+d] = 0
		}
	}
	t.SyncThreads()
	lt := (uint64(1) << lane) - 1
	for base := lo; base < hi; base += bd {
		i := base + tid
		valid := i < hi
		var k K
		d := 0
		if valid {
			k = keysIn[i]
			d = int((ordered(k, kind, width, desc) >> shift) & mask)
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
		rank := popc(peers & lt)
		if valid && rank == 0 {
			cnt[w*256+d] = uint32(popc(peers))
		}
		t.SyncThreads()
		for dd := tid; dd < nd; dd += bd {
			r := run[dd]
			for x := 0; x < nw; x++ {
				c := cnt[x*256+dd]
				off[x*256+dd] = r
				r += c
				cnt[x*256+dd] = 0
			}
			run[dd] = r
		}
		t.SyncThreads()
		if valid {
			p := off[w*256+d] + uint32(rank)
			keysOut[p] = k
			if pairs {
				valsOut[p] = valsIn[i]
			}
		}
	}
}
