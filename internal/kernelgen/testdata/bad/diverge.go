package bad

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
func Diverge(t kernel.Thread, x []int32, n int) {
	i := t.GlobalX()
	v := x[i]
	if t.Lane() < 9 {
		v = kernel.ShflDown(t, v, 1)
	}
	for j := i; j < n; j += 32 {
		v += int32(kernel.Ballot(t, j > 3))
	}
	tid := t.ThreadIdx().X
	if tid < t.WarpSize() {
		v += kernel.ShflXor(t, v, 1) // the warp-index idiom: uniform
	}
	if w := tid / t.WarpSize(); w == 0 {
		v = warpSum(t, v) // uniform
	}
	if v > 0 {
		v = warpSum(t, v)
	}
	if i >= n {
		return
	}
	t.SyncWarp()
	x[i] = kernel.ShflXorSync(t, kernel.FullMask, v, 1, 32) // a mask: the author's word
}

func warpSum(t kernel.Thread, v int32) int32 {
	for off := t.WarpSize() / 2; off > 0; off /= 2 {
		v += kernel.ShflDown(t, v, off)
	}
	return v
}

// warpSumTo's loop is bounded by its parameter: uniform where every call
// passes a uniform width.
func warpSumTo(t kernel.Thread, v int32, width int) int32 {
	for off := width / 2; off > 0; off /= 2 {
		v += kernel.ShflDown(t, v, off)
	}
	return v
}

//hipgo:kernel
func Widths(t kernel.Thread, x []int32, w int) {
	i := t.GlobalX()
	x[i] = warpSumTo(t, x[i], w) + warpSumTo(t, x[i], t.WarpSize())
}

func laneSum(t kernel.Thread, v int32, n int) int32 {
	if n > 3 {
		v = kernel.ShflXor(t, v, 1)
	}
	return v
}

//hipgo:kernel
func LaneWidths(t kernel.Thread, x []int32) {
	i := t.GlobalX()
	x[i] = laneSum(t, x[i], t.Lane())
}
