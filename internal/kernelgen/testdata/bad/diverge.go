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
