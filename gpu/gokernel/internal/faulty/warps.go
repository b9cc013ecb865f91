package faulty

import "github.com/hipgo/hipgo/rocr/kernel"

// WarpOuts and WarpFloatOuts are how many results warpOps writes per
// work-item.
const (
	WarpOuts      = 16
	WarpFloatOuts = 4
)

// warpOps runs each warp operation with a mask and a width in the cases
// CUDA defines, and the warp reductions, including lanes of a warp that
// part into two branches, each with its own mask. Every agent must give
// the same results, floats to the bit.
//
//hipgo:kernel
func warpOps(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32, votes []uint64) {
	i := t.GlobalX()
	lane := t.Lane()
	v, f := in[i], fin[i]
	o := out[i*WarpOuts : i*WarpOuts+WarpOuts]
	of := fout[i*WarpFloatOuts : i*WarpFloatOuts+WarpFloatOuts]
	o[0] = kernel.ShflSync(t, kernel.FullMask, v, lane*7+3, 32)
	o[1] = kernel.ShflSync(t, kernel.FullMask, v, -lane, 8)
	o[2] = kernel.ShflUpSync(t, kernel.FullMask, v, 3, 16)
	o[3] = kernel.ShflDownSync(t, kernel.FullMask, v, 5, 8)
	o[4] = kernel.ShflXorSync(t, kernel.FullMask, v, 17, 16)
	o[5] = kernel.ShflDownSync(t, kernel.FullMask, v, 40, 32)
	o[6] = kernel.ReduceAddSync(t, kernel.FullMask, v)
	o[7] = kernel.ReduceMinSync(t, kernel.FullMask, v)
	o[8] = kernel.ReduceMaxSync(t, kernel.FullMask, v)
	o[9] = kernel.ReduceAndSync(t, kernel.FullMask, v) ^ kernel.ReduceOrSync(t, kernel.FullMask, v)
	o[10] = kernel.ReduceXorSync(t, kernel.FullMask, v)
	of[0] = kernel.ReduceAddSync(t, kernel.FullMask, f)
	of[1] = kernel.ReduceMaxSync(t, kernel.FullMask, f)
	votes[2*i] = kernel.BallotSync(t, kernel.FullMask, v > 0)
	// The warp parts: the first nine lanes, and the others.
	const low = 0x1ff
	if lane < 9 {
		o[11] = kernel.ShflSync(t, low, v, (lane+1)%9, 32)
		o[12] = kernel.ReduceAddSync(t, low, v)
		of[2] = kernel.ReduceAddSync(t, low, f)
		votes[2*i+1] = kernel.BallotSync(t, low, v > 0)
		if kernel.AnySync(t, low, v < 0) {
			o[13] = 1
		}
	} else {
		const high = 0xffffffff &^ low
		o[11] = kernel.ShflSync(t, high, v, 9+(lane-8)%23, 32)
		o[12] = kernel.ReduceMaxSync(t, high, v)
		of[2] = kernel.ReduceAddSync(t, high, f)
		of[3] = kernel.ReduceMinSync(t, high, f)
		votes[2*i+1] = kernel.BallotSync(t, high, v > 0)
		if kernel.AllSync(t, high, v > -1000000) {
			o[13] = 2
		}
	}
	o[14] = kernel.ShflUpSync(t, kernel.FullMask, v, 1, 32)
	kernel.SyncWarpMask(t, kernel.FullMask)
	o[15] = int32(kernel.ShflXorSync(t, kernel.FullMask, int64(v)<<20, 31, 32) >> 20)
}
