package prim

// The device side of ScanWith and MergeSortWith, generic over the
// caller's functor. This file is written once and used twice: the cpu
// agent's kernels for an operation hipgo-gen has not instantiated run
// these functions (scan_with.go, merge_with.go), and hipgo-gen copies
// them, from the declarations after the imports on, into the calling
// package's hipgo_inst_gen.go (internal/kernelgen/libsrc_gen.go, made by
// go generate there), where they become that package's kernels. So every
// name here starts with hipgo and nothing else of package prim is used.
// The structure is the built-in scan's (scanTiles, blockScan) and merge
// sort's (kernels_merge.go), with the functor's methods in place of the
// built-in operations.

import "github.com/hipgo/hipgo/rocr/kernel"

// hipgoScanFunc is ScanWith's operation.
type hipgoScanFunc[T any] interface {
	Apply(a, b T) T
	Identity() T
}

// hipgoLessFunc is MergeSortWith's comparator.
type hipgoLessFunc[K any] interface {
	Less(a, b K) bool
}

// hipgoKey is a key type of MergeSortWith.
type hipgoKey interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// A scan pass's modes.
const (
	hipgoScanWhole = 0 // the blocks' tiles scanned from Identity
	hipgoScanUp    = 1 // out[block] = the block's tiles combined, in order
	hipgoScanDown  = 2 // the blocks' tiles scanned from offs[block]
)

// hipgoMergeRun is the cpu agent's first sorted runs.
const hipgoMergeRun = 32

// hipgoBlockScan is the exclusive prefix of v over the block's work-items
// in order by F (Identity for the first), and the block's total. The
// block is a multiple of the warp.
func hipgoBlockScan[F hipgoScanFunc[T], T kernel.Shuffleable](t kernel.Thread, v T, warps *[32]T) (T, T) {
	var op F
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := t.ThreadIdx().X/ws, t.BlockDim().X/ws
	x := v
	for d := 1; d < ws; d <<= 1 {
		y := kernel.ShflUp(t, x, d)
		if lane >= d {
			x = op.Apply(y, x)
		}
	}
	e := kernel.ShflUp(t, x, 1)
	if lane == 0 {
		e = op.Identity()
	}
	if lane == ws-1 {
		warps[w] = x
	}
	t.SyncThreads()
	if w == 0 {
		s := op.Identity()
		if lane < nw {
			s = warps[lane]
		}
		for d := 1; d < ws; d <<= 1 {
			y := kernel.ShflUp(t, s, d)
			if lane >= d {
				s = op.Apply(y, s)
			}
		}
		if lane < nw {
			warps[lane] = s
		}
	}
	t.SyncThreads()
	if w > 0 {
		e = op.Apply(warps[w-1], e)
	}
	return e, warps[nw-1]
}

// hipgoScanTiles is a pass of ScanWith over the block's tpb tiles of tile
// elements, in order (mode: hipgoScanWhole, Up or Down). A GPU block
// stages a tile in sh so that loads and stores are coalesced and each
// work-item combines consecutive elements; a block of one work-item (the
// cpu agent) walks its span. out may be in.
func hipgoScanTiles[F hipgoScanFunc[T], T kernel.Shuffleable](t kernel.Thread, in, out, offs []T, mode int, exclusive bool, tile, tpb int, sh []T, warps *[32]T) {
	var op F
	n := len(in)
	bd, tid, b := t.BlockDim().X, t.ThreadIdx().X, t.BlockIdx().X
	base := b * tile * tpb
	carry := op.Identity()
	if mode == hipgoScanDown {
		carry = offs[b]
	}
	if bd == 1 {
		lo := min(base, n)
		hi := min(base+tile*tpb, n)
		for i := lo; i < hi; i++ {
			x := in[i]
			if mode == hipgoScanUp {
				carry = op.Apply(carry, x)
			} else if exclusive {
				out[i] = carry
				carry = op.Apply(carry, x)
			} else {
				carry = op.Apply(carry, x)
				out[i] = carry
			}
		}
		if mode == hipgoScanUp {
			out[b] = carry
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
		m := min(tile, n-lo)
		for j := 0; j < items; j++ {
			if i := j*bd + tid; i < m {
				sh[i] = in[lo+i]
			}
		}
		t.SyncThreads()
		sum := op.Identity()
		for j := 0; j < items; j++ {
			if x := tid*items + j; x < m {
				sum = op.Apply(sum, sh[x])
			}
		}
		pre, total := hipgoBlockScan[F, T](t, sum, warps)
		if mode != hipgoScanUp {
			run := op.Apply(carry, pre)
			for j := 0; j < items; j++ {
				if x := tid*items + j; x < m {
					v := sh[x]
					if exclusive {
						sh[x] = run
						run = op.Apply(run, v)
					} else {
						run = op.Apply(run, v)
						sh[x] = run
					}
				}
			}
			t.SyncThreads()
			for j := 0; j < items; j++ {
				if i := j*bd + tid; i < m {
					out[lo+i] = sh[i]
				}
			}
		}
		carry = op.Apply(carry, total)
		t.SyncThreads()
	}
	if mode == hipgoScanUp && tid == 0 {
		out[b] = carry
	}
}

// hipgoMergePath is how many of a's keys are among the first d keys of
// the stable merge of the sorted runs a and b (a's keys go first among
// equal ones).
func hipgoMergePath[F hipgoLessFunc[K], K hipgoKey](a, b []K, d int) int {
	var op F
	lo, hi := max(0, d-len(b)), min(d, len(a))
	for lo < hi {
		m := (lo + hi) / 2
		if op.Less(b[d-1-m], a[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// hipgoRankIn is how many of the sorted run s go before k: those less
// than k, or with after those equal to it too.
func hipgoRankIn[F hipgoLessFunc[K], K hipgoKey](s []K, k K, after bool) int {
	var op F
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		before := op.Less(s[m], k)
		if after {
			before = !op.Less(k, s[m])
		}
		if before {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// hipgoMergeSortTiles sorts each tile of in into out, stably, with the
// keys' input indices in outI where pairs. A GPU block sorts its tile in
// shared memory (sk: 2*tile keys, si: their indices) by log2(tile)
// rounds in which each key finds its place in the merged pair of runs by
// its rank in the other run; a block of one work-item (the cpu agent)
// sorts runs of hipgoMergeRun keys of its span by insertion. out may be
// in: a tile is read whole before it is written.
func hipgoMergeSortTiles[F hipgoLessFunc[K], K hipgoKey](t kernel.Thread, in, out []K, outI []uint32, pairs bool, tile int, sk []K, si *[2048]uint32) {
	var op F
	bd, tid, b := t.BlockDim().X, t.ThreadIdx().X, t.BlockIdx().X
	n := len(in)
	lo := b * tile
	if lo >= n {
		return
	}
	m := min(tile, n-lo)
	if bd == 1 {
		for r := lo; r < lo+m; r += hipgoMergeRun {
			re := min(r+hipgoMergeRun, lo+m)
			for x := r; x < re; x++ {
				k := in[x]
				y := x
				for y > r && op.Less(k, out[y-1]) {
					out[y] = out[y-1]
					if pairs {
						outI[y] = outI[y-1]
					}
					y--
				}
				out[y] = k
				if pairs {
					outI[y] = uint32(x)
				}
			}
		}
		return
	}
	for x := tid; x < m; x += bd {
		sk[x] = in[lo+x]
		si[x] = uint32(x)
	}
	t.SyncThreads()
	src := 0
	for w := 1; w < m; w *= 2 {
		dst := tile - src
		for x := tid; x < m; x += bd {
			r0 := x / (2 * w) * (2 * w)
			ae, be := min(r0+w, m), min(r0+2*w, m)
			k := sk[src+x]
			p := 0
			if x < ae {
				p = x - r0 + hipgoRankIn[F, K](sk[src+ae:src+be], k, false)
			} else {
				p = x - ae + hipgoRankIn[F, K](sk[src+r0:src+ae], k, true)
			}
			sk[dst+r0+p] = k
			si[dst+r0+p] = si[src+x]
		}
		t.SyncThreads()
		src = dst
	}
	for x := tid; x < m; x += bd {
		out[lo+x] = sk[src+x]
		if pairs {
			outI[lo+x] = uint32(lo) + si[src+x]
		}
	}
}

// hipgoMergeRange writes the outputs [d0, d1) of the stable merge of the
// sorted runs src[as:bs] and src[bs:be] to dst[as+d0:as+d1], and their
// indices where pairs.
func hipgoMergeRange[F hipgoLessFunc[K], K hipgoKey](src, dst []K, srcI, dstI []uint32, pairs bool, as, bs, be, d0, d1 int) {
	var op F
	a, b := src[as:bs], src[bs:be]
	i := hipgoMergePath[F, K](a, b, d0)
	j := d0 - i
	for d := d0; d < d1; d++ {
		from := bs + j
		if j >= len(b) || (i < len(a) && !op.Less(b[j], a[i])) {
			from = as + i
			i++
		} else {
			j++
		}
		dst[as+d] = src[from]
		if pairs {
			dstI[as+d] = srcI[from]
		}
	}
}

// hipgoMergeRuns merges each pair of sorted runs of w keys of
// src[:count] into dst (and their indices, where pairs). A GPU block
// writes tile outputs (w is a multiple of tile, so they lie in one
// pair): its first work-item finds where they start and end in the two
// runs, the block loads those keys into shared memory, each work-item
// finds its own start there and merges tile/blockDim keys, and the block
// writes them out. On the cpu agent a block merges its span (tile
// outputs) straight from src to dst.
func hipgoMergeRuns[F hipgoLessFunc[K], K hipgoKey](t kernel.Thread, src, dst []K, srcI, dstI []uint32, pairs bool, count, w, tile int, sk []K, si *[2048]uint32, part *[2]int) {
	var op F
	bd, tid, b := t.BlockDim().X, t.ThreadIdx().X, t.BlockIdx().X
	n := count
	o0 := b * tile
	if o0 >= n {
		return
	}
	o1 := min(o0+tile, n)
	if bd == 1 {
		for o := o0; o < o1; {
			ps := o / (2 * w) * (2 * w)
			e := min(o1, ps+2*w)
			hipgoMergeRange[F, K](src, dst, srcI, dstI, pairs, ps, min(ps+w, n), min(ps+2*w, n), o-ps, e-ps)
			o = e
		}
		return
	}
	ps := o0 / (2 * w) * (2 * w)
	as, bs, be := ps, min(ps+w, n), min(ps+2*w, n)
	if tid == 0 {
		part[0] = hipgoMergePath[F, K](src[as:bs], src[bs:be], o0-ps)
		part[1] = hipgoMergePath[F, K](src[as:bs], src[bs:be], o1-ps)
	}
	t.SyncThreads()
	i0, i1 := part[0], part[1]
	j0 := o0 - ps - i0
	la, tot := i1-i0, o1-o0
	lb := tot - la
	for x := tid; x < tot; x += bd {
		g := bs + j0 + x - la
		if x < la {
			g = as + i0 + x
		}
		sk[x] = src[g]
		if pairs {
			si[x] = srcI[g]
		}
	}
	t.SyncThreads()
	ipt := tile / bd
	if d := tid * ipt; d < tot {
		i := hipgoMergePath[F, K](sk[0:la], sk[la:tot], d)
		j := d - i
		for k := d; k < min(d+ipt, tot); k++ {
			from := la + j
			if j >= lb || (i < la && !op.Less(sk[la+j], sk[i])) {
				from = i
				i++
			} else {
				j++
			}
			sk[tile+k] = sk[from]
			if pairs {
				si[tile+k] = si[from]
			}
		}
	}
	t.SyncThreads()
	for x := tid; x < tot; x += bd {
		dst[o0+x] = sk[tile+x]
		if pairs {
			dstI[o0+x] = si[tile+x]
		}
	}
}
