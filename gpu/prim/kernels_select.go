package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// The device side of Select, Partition and RunLengthEncode: a count of
// the selected elements per tile, their exclusive scan (the package's
// scan over int64), and a stable scatter that ranks each tile's selected
// elements by warp ballots.

// Selection predicates (SelectOp's values).
const (
	predFlags        int32 = iota // flags[i] != 0
	predUnique                    // i == 0 || in[i] != in[i-1]
	predLess                      // in[i] < a
	predLessEqual                 // in[i] <= a
	predGreater                   // in[i] > a
	predGreaterEqual              // in[i] >= a
	predEqual                     // in[i] == a
	predNotEqual                  // in[i] != a
)

// chosen says whether element i is selected.
func chosen[T number](in []T, flags []uint8, i int, pred int32, a T) bool {
	switch pred {
	case predFlags:
		return flags[i] != 0
	case predUnique:
		return i == 0 || in[i] != in[i-1]
	case predLess:
		return in[i] < a
	case predLessEqual:
		return in[i] <= a
	case predGreater:
		return in[i] > a
	case predGreaterEqual:
		return in[i] >= a
	case predEqual:
		return in[i] == a
	}
	return in[i] != a
}

// selectCount is a selection's first pass: counts[block] = how many
// elements of the block's tile are selected.
func selectCount[T number](t kernel.Thread, in []T, flags []uint8, counts []int64, pred int32, a T, tile int, warps *[32]int64) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	lo := min(t.BlockIdx().X*tile, len(in))
	hi := min(lo+tile, len(in))
	var c int64
	for i := lo + tid; i < hi; i += bd {
		if chosen(in, flags, i, pred, a) {
			c++
		}
	}
	c = blockReduce(t, c, 0, opSum, warps)
	if tid == 0 {
		counts[t.BlockIdx().X] = c
	}
}

// selectScatter is a selection's last pass (and the whole of a one-tile
// selection, single): the block's selected elements go, in order, to
// out (values, with vals) and outIdx (their indices, with idx) from
// offs[block], the selected ones before its tile; with partition the
// others go in order after all the selected ones. num[0] gets the number
// selected. single computes the count itself (one block, offs unused).
func selectScatter[T number](t kernel.Thread, in []T, flags []uint8, out []T, outIdx []int64, vals, idx bool, pred int32, a T, offs, counts, num []int64, single, partition bool, tile int, warps *[32]int64, wc *[32]int32) {
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	b, nb := t.BlockIdx().X, t.GridDim().X
	n := len(in)
	lo := min(b*tile, n)
	hi := min(lo+tile, n)
	var base, total int64
	if single {
		var c int64
		for i := lo + tid; i < hi; i += bd {
			if chosen(in, flags, i, pred, a) {
				c++
			}
		}
		total = blockReduce(t, c, 0, opSum, warps)
		if bd > 1 {
			if tid == 0 {
				warps[0] = total
			}
			t.SyncThreads()
			total = warps[0]
		}
	} else {
		base = offs[b]
		total = offs[nb-1] + counts[nb-1]
	}
	if b == 0 && tid == 0 {
		num[0] = total
	}
	if bd == 1 {
		for i := lo; i < hi; i++ {
			if chosen(in, flags, i, pred, a) {
				if vals {
					out[base] = in[i]
				}
				if idx {
					outIdx[base] = int64(i)
				}
				base++
			} else if partition {
				p := total + int64(i) - base
				out[p] = in[i]
			}
		}
		return
	}
	ws, lane := t.WarpSize(), t.Lane()
	w, nw := tid/ws, bd/ws
	lt := (uint64(1) << lane) - 1
	for row := lo; row < hi; row += bd {
		i := row + tid
		f := i < hi && chosen(in, flags, i, pred, a)
		m := kernel.Ballot(t, f)
		if lane == 0 {
			wc[w] = int32(popc(m))
		}
		t.SyncThreads()
		pre, all := int64(popc(m&lt)), int64(0)
		for x := 0; x < nw; x++ {
			c := int64(wc[x])
			if x < w {
				pre += c
			}
			all += c
		}
		t.SyncThreads()
		if i < hi {
			p := base + pre
			if f {
				if vals {
					out[p] = in[i]
				}
				if idx {
					outIdx[p] = int64(i)
				}
			} else if partition {
				out[total+int64(i)-p] = in[i]
			}
		}
		base += all
	}
}

// runLengths is RunLengthEncode's last pass: counts[j] = the length of
// run j, from heads (the runs' first indices) and num[0] runs of n
// elements.
//
//hipgo:kernel
func runLengths(t kernel.Thread, heads, num, counts []int64, n, span int) {
	r := int(num[0])
	lo, hi, step := t.GlobalX(), r, t.BlockDim().X*t.GridDim().X
	if span > 0 {
		lo = min(t.GlobalX()*span, r)
		hi = min(lo+span, r)
		step = 1
	}
	for j := lo; j < hi; j += step {
		end := int64(n)
		if j+1 < r {
			end = heads[j+1]
		}
		counts[j] = end - heads[j]
	}
}
