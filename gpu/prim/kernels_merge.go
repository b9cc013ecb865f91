package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// The merge sort's device side: a block sorts a tile in shared memory,
// then passes merge pairs of sorted runs, each block finding where its
// part of the output starts in the two runs by a merge-path search.
//
// mergeLess is the one place the order lives: the kernels reach it only
// through mergeSortBlock, mergePass and their helpers, so an instance of
// them for a user's comparator (a Go device function) replaces this
// call and nothing else.

// Merge sort orderings (Ordering's values).
const (
	ordAscending int32 = iota
	ordDescending
	ordTotalAscending
	ordTotalDescending
)

const (
	mergeTile = 1024 // keys a GPU block sorts, and merges, in shared memory (blocks of 256, 4 keys each)
	mergeRun  = 32   // the cpu agent's first sorted runs
)

// mergeLess says whether key a goes strictly before key b.
func mergeLess[K number](a, b K, ord, kind int32, width int) bool {
	switch ord {
	case ordDescending:
		return b < a
	case ordTotalAscending:
		return ordered(a, kind, width, false) < ordered(b, kind, width, false)
	case ordTotalDescending:
		return ordered(b, kind, width, false) < ordered(a, kind, width, false)
	}
	return a < b
}

// mergePath is how many of a's keys are among the first d keys of the
// stable merge of the sorted runs a and b (a's keys go first among equal
// ones).
func mergePath[K number](a, b []K, d int, ord, kind int32, width int) int {
	lo, hi := max(0, d-len(b)), min(d, len(a))
	for lo < hi {
		m := (lo + hi) / 2
		if mergeLess(b[d-1-m], a[m], ord, kind, width) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// rankIn is how many of the sorted run s go before k: those less than k,
// or with after those equal to it too.
func rankIn[K number](s []K, k K, after bool, ord, kind int32, width int) int {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		before := mergeLess(s[m], k, ord, kind, width)
		if after {
			before = !mergeLess(k, s[m], ord, kind, width)
		}
		if before {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// mergeSortBlock sorts each tile of in into out, stably, with the keys'
// input indices in outI where pairs. A GPU block sorts its tile in shared
// memory (sk: 2*tile keys, si: their indices) by log2(tile) rounds in
// which each key finds its place in the merged pair of runs by its rank
// in the other run. On the cpu agent (blocks of one work-item) a block
// sorts runs of mergeRun keys of its span (tile keys) by insertion.
// out may be in: a tile is read whole before it is written.
func mergeSortBlock[K number](t kernel.Thread, in, out []K, outI []uint32, pairs bool, ord, kind int32, width int, tile int, sk []K, si *[2048]uint32) {
	bd, tid, b := t.BlockDim().X, t.ThreadIdx().X, t.BlockIdx().X
	n := len(in)
	lo := b * tile
	if lo >= n {
		return
	}
	m := min(tile, n-lo)
	if bd == 1 {
		for r := lo; r < lo+m; r += mergeRun {
			re := min(r+mergeRun, lo+m)
			for x := r; x < re; x++ {
				k := in[x]
				y := x
				for y > r && mergeLess(k, out[y-1], ord, kind, width) {
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
				p = x - r0 + rankIn(sk[src+ae:src+be], k, false, ord, kind, width)
			} else {
				p = x - ae + rankIn(sk[src+r0:src+ae], k, true, ord, kind, width)
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

// mergeRange writes the outputs [d0, d1) of the stable merge of the
// sorted runs src[as:bs] and src[bs:be] to dst[as+d0:as+d1], and their
// indices where pairs.
func mergeRange[K number](src, dst []K, srcI, dstI []uint32, pairs bool, as, bs, be, d0, d1 int, ord, kind int32, width int) {
	a, b := src[as:bs], src[bs:be]
	i := mergePath(a, b, d0, ord, kind, width)
	j := d0 - i
	for d := d0; d < d1; d++ {
		from := bs + j
		if j >= len(b) || (i < len(a) && !mergeLess(b[j], a[i], ord, kind, width)) {
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

// mergePass merges each pair of sorted runs of w keys of src[:count] into dst
// (and their indices, where pairs). A GPU block writes tile outputs
// (w is a multiple of tile, so they lie in one pair): its first
// work-item finds where they start and end in the two runs, the block
// loads those keys into shared memory, each work-item finds its own
// start there and merges tile/blockDim keys, and the block writes them
// out. On the cpu agent a block merges its span (tile outputs) straight
// from src to dst.
func mergePass[K number](t kernel.Thread, src, dst []K, srcI, dstI []uint32, pairs bool, ord, kind int32, width int, count, w, tile int, sk []K, si *[2048]uint32, part *[2]int) {
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
			mergeRange(src, dst, srcI, dstI, pairs, ps, min(ps+w, n), min(ps+2*w, n), o-ps, e-ps, ord, kind, width)
			o = e
		}
		return
	}
	ps := o0 / (2 * w) * (2 * w)
	as, bs, be := ps, min(ps+w, n), min(ps+2*w, n)
	if tid == 0 {
		part[0] = mergePath(src[as:bs], src[bs:be], o0-ps, ord, kind, width)
		part[1] = mergePath(src[as:bs], src[bs:be], o1-ps, ord, kind, width)
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
		i := mergePath(sk[0:la], sk[la:tot], d, ord, kind, width)
		j := d - i
		for k := d; k < min(d+ipt, tot); k++ {
			from := la + j
			if j >= lb || (i < la && !mergeLess(sk[la+j], sk[i], ord, kind, width)) {
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

// gather writes out[i] = in[idx[i]] for i < count: the merge sort's values moved by
// the sorted keys' input indices. A grid-stride loop (span 0, GPUs) or
// the contiguous span t.GlobalX()*span on (the cpu agent).
func gather[V number](t kernel.Thread, in []V, idx []uint32, out []V, count, span int) {
	n := count
	if span > 0 {
		lo := min(t.GlobalX()*span, n)
		for i := lo; i < min(lo+span, n); i++ {
			out[i] = in[idx[i]]
		}
		return
	}
	for i := t.GlobalX(); i < n; i += t.BlockDim().X * t.GridDim().X {
		out[i] = in[idx[i]]
	}
}
