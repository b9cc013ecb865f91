// Package lockstep holds Go kernels with warp operations and barriers
// for gokernel's tests: each runs on the cpu agent by loop fission, and
// kernelimpl.SetCoroutines runs it as coroutines instead, so a test
// compares the two bit for bit, failures included.
package lockstep

//go:generate go run ../../../../cmd/hipgo-gen -go . -o kernels_gen.go -prefix Launch -var Library

import "github.com/hipgo/hipgo/rocr/kernel"

// Outs is how many results each kernel may write per work-item, in out
// and in fout.
const Outs = 8

// shuffles shuffles with every width: by index, up, down and xor.
//
//hipgo:kernel
func shuffles(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	lane := t.Lane()
	v := in[i]
	o := out[i*Outs : i*Outs+Outs]
	o[0] = kernel.ShflSync(t, kernel.FullMask, v, lane*7+3, 32)
	o[1] = kernel.ShflSync(t, kernel.FullMask, v, -lane, 8)
	o[2] = kernel.ShflUpSync(t, kernel.FullMask, v, 3, 16)
	o[3] = kernel.ShflDownSync(t, kernel.FullMask, v, 5, 8)
	o[4] = kernel.ShflXorSync(t, kernel.FullMask, v, 17, 16)
	o[5] = kernel.ShflDownSync(t, kernel.FullMask, v, 40, 32) + kernel.ShflUp(t, v, 1)
	o[6] = kernel.Shfl(t, v, lane+lane%3-1)
	fout[i*Outs] = kernel.ShflXor(t, fin[i], 5)
}

// nested runs warp operations inside each other's operands, in a
// uniform loop, and one whose result is unused.
//
//hipgo:kernel
func nested(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	v := in[i]
	o := out[i*Outs : i*Outs+Outs]
	o[0] = kernel.ShflDown(t, kernel.ShflUp(t, v, 1)+int32(t.Lane()), 2) - kernel.ShflXor(t, v, 3)
	for k := 1; k < t.WarpSize(); k *= 3 {
		v = kernel.ShflXor(t, v, k) ^ v<<1
		t.SyncWarp()
	}
	o[1] = v
	o[2] = mix(v, kernel.ShflDown(t, v, 1), int32(t.Lane()))
	var f = fin[i]
	if kernel.Any(t, f > 1e6) {
		f = -f
	}
	fout[i*Outs] = f
}

// mix is a device function called around a shuffle: after it, as Go
// evaluates it.
func mix(a, b, c int32) int32 { return a*3 - b ^ c }

// votes ballots, any and all, over the full warp and a mask.
//
//hipgo:kernel
func votes(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	v := in[i]
	o := out[i*Outs : i*Outs+Outs]
	b := kernel.Ballot(t, v > 0)
	o[0], o[1] = int32(b), int32(b>>32)
	if kernel.All(t, v > -60000) {
		o[2] = 1
	}
	if kernel.Any(t, v%97 == 0) {
		o[3] = 1
	}
	if t.Lane()&4 == 0 {
		o[4] = int32(kernel.BallotSync(t, 0x0f0f0f0f, v%2 == 0))
	}
	some, every := kernel.AnySync(t, kernel.FullMask, v > 49000), kernel.AllSync(t, kernel.FullMask, v < 50001)
	if some || every {
		o[5] = 1
	}
}

// reductions runs every warp reduction over the full warp, floats in
// the butterfly's order.
//
//hipgo:kernel
func reductions(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	v, f := in[i], fin[i]
	o := out[i*Outs : i*Outs+Outs]
	o[0] = kernel.ReduceAddSync(t, kernel.FullMask, v)
	o[1] = kernel.ReduceMinSync(t, kernel.FullMask, v)
	o[2] = kernel.ReduceMaxSync(t, kernel.FullMask, v)
	o[3] = kernel.ReduceAndSync(t, kernel.FullMask, v) ^ kernel.ReduceOrSync(t, kernel.FullMask, v)
	o[4] = kernel.ReduceXorSync(t, kernel.FullMask, v)
	fout[i*Outs] = kernel.ReduceAddSync(t, kernel.FullMask, f)
	fout[i*Outs+1] = kernel.ReduceMaxSync(t, kernel.FullMask, f)
	fout[i*Outs+2] = kernel.ReduceMinSync(t, kernel.FullMask, f)
}

// masked parts each warp into the first nine lanes and the others, each
// part under an if of its own with its own mask.
//
//hipgo:kernel
func masked(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	lane := t.Lane()
	v, f := in[i], fin[i]
	o := out[i*Outs : i*Outs+Outs]
	const low = 0x1ff
	const high = 0xffffffff &^ low
	if lane < 9 {
		o[0] = kernel.ShflSync(t, low, v, (lane+1)%9, 32)
		o[1] = kernel.ReduceAddSync(t, low, v)
		fout[i*Outs] = kernel.ReduceAddSync(t, low, f)
		o[2] = int32(kernel.BallotSync(t, low, v > 0))
	}
	if lane >= 9 {
		o[0] = kernel.ShflSync(t, high, v, 9+(lane-8)%23, 32)
		o[1] = kernel.ReduceMaxSync(t, high, v)
		fout[i*Outs] = kernel.ReduceAddSync(t, high, f)
		fout[i*Outs+1] = kernel.ReduceMinSync(t, high, f)
		o[2] = int32(kernel.BallotSync(t, high, v > 0))
	}
	t.SyncThreads()
	o[3] = kernel.ShflUpSync(t, kernel.FullMask, v, 1, 32)
}

// returned has lanes that return before the warp operations and lanes
// that skip an if whose mask names them: both are gone for it.
//
//hipgo:kernel
func returned(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	lane := t.Lane()
	v := in[i]
	o := out[i*Outs : i*Outs+Outs]
	o[0] = -1
	if lane%5 == 3 {
		return
	}
	o[1] = kernel.ShflDownSync(t, kernel.FullMask, v, 1, 32)
	o[2] = kernel.ReduceAddSync(t, kernel.FullMask, v)
	o[3] = int32(kernel.BallotSync(t, kernel.FullMask, v > 0))
	if lane < 20 {
		o[4] = kernel.ShflDownSync(t, kernel.FullMask, v, 2, 32)
		o[5] = kernel.ReduceAddSync(t, kernel.FullMask, v)
	}
}

// warpScan is an inclusive scan of each block by shuffles up, the warps'
// sums scanned by the first warp through shared memory (a block of up
// to 1024 work-items).
//
//hipgo:kernel
func warpScan(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	sums := kernel.Shared[[32]int32](t)
	i := t.GlobalX()
	tid := t.ThreadIdx().X
	lane, warp := t.Lane(), tid/t.WarpSize()
	v := in[i]
	for d := 1; d < t.WarpSize(); d <<= 1 {
		n := kernel.ShflUp(t, v, d)
		if lane >= d {
			v += n
		}
	}
	if lane == t.WarpSize()-1 {
		sums[warp] = v
	}
	t.SyncThreads()
	if warp == 0 {
		nw := t.BlockDim().X / t.WarpSize()
		var s int32
		if lane < nw {
			s = sums[lane]
		}
		for d := 1; d < t.WarpSize(); d <<= 1 {
			n := kernel.ShflUp(t, s, d)
			if lane >= d {
				s += n
			}
		}
		if lane < nw {
			sums[lane] = s
		}
	}
	t.SyncThreads()
	if warp > 0 {
		v += sums[warp-1]
	}
	out[i*Outs] = v
}

// treeReduce is a block's sum by a tree in shared memory, then the first
// warp's shuffles under an if (NVIDIA's reduce6 shape), in a device
// function called with the block's uniform arguments.
//
//hipgo:kernel
func treeReduce(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	sdata := kernel.Shared[[1024]float32](t)
	reduceTo(t, fin, fout, sdata)
}

func reduceTo(t kernel.Thread, in, out []float32, sdata *[1024]float32) {
	tid := t.ThreadIdx().X
	bs := t.BlockDim().X
	ws := t.WarpSize()
	sum := in[t.GlobalX()]
	sdata[tid] = sum
	t.SyncThreads()
	for s := bs / 2; s >= 2*ws; s >>= 1 {
		if tid < s {
			sum += sdata[tid+s]
			sdata[tid] = sum
		}
		t.SyncThreads()
	}
	if tid < ws {
		sum += sdata[tid+ws]
		for off := ws / 2; off > 0; off >>= 1 {
			sum += kernel.ShflDown(t, sum, off)
		}
		if tid == 0 {
			out[t.BlockIdx().X*Outs] = sum
		}
	}
}

// blockSum is the sum of v over the block, given to every work-item:
// each warp's sum by shuffles, the warps' sums through shared memory.
func blockSum(t kernel.Thread, v int32, part *[32]int32) int32 {
	lane, warp := t.Lane(), t.ThreadIdx().X/t.WarpSize()
	v = kernel.ReduceAddSync(t, kernel.FullMask, v)
	if lane == 0 {
		part[warp] = v
	}
	t.SyncThreads()
	var s int32
	for w := 0; w < t.BlockDim().X/t.WarpSize(); w++ {
		s += part[w]
	}
	t.SyncThreads()
	return s
}

// blockReduce takes the block's sum twice from a device function that
// synchronizes and returns it.
//
//hipgo:kernel
func blockReduce(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	part := kernel.Shared[[32]int32](t)
	i := t.GlobalX()
	s := blockSum(t, in[i], part)
	out[i*Outs] = s
	s2 := blockSum(t, in[i]*int32(t.Lane()), part)
	out[i*Outs+1] = s2 - s
}

// grid2D runs warp operations in a two-dimensional block, whose lanes
// are numbered across its rows.
//
//hipgo:kernel
func grid2D(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	id, dim := t.ThreadIdx(), t.BlockDim()
	i := (t.BlockIdx().X*dim.Y+id.Y)*dim.X + id.X
	v := in[i]
	out[i*Outs] = kernel.ShflDown(t, v, 3)
	out[i*Outs+1] = kernel.ReduceAddSync(t, kernel.FullMask, v)
	out[i*Outs+2] = int32(t.Lane())
}

// badWidth shuffles with a width that is not a power of two.
//
//hipgo:kernel
func badWidth(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	out[i] = kernel.ShflSync(t, kernel.FullMask, in[i], 0, 12)
}

// badMask shuffles with a mask that names lane 0 only.
//
//hipgo:kernel
func badMask(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	out[i] = kernel.ShflSync(t, 1, in[i], 0, 32)
}

// neverCompletes shuffles over the full warp in half of it, the other
// half waiting at the barrier after.
//
//hipgo:kernel
func neverCompletes(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	if t.Lane() < 16 {
		out[i] = kernel.ShflDownSync(t, kernel.FullMask, in[i], 1, 32)
	}
	t.SyncThreads()
	out[i]++
}

// mixedMasks votes with masks that differ between the lanes they name,
// then waits at a barrier: lanes 4 to 7 wait for lanes 0 to 3 there.
//
//hipgo:kernel
func mixedMasks(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	out[i] = int32(kernel.BallotSync(t, 0x0f0f0f0f|1<<t.Lane(), in[i] > 0))
	t.SyncThreads()
	out[i]++
}

// uniformReturn returns every work-item of odd blocks early, under a
// condition the same across the block; the others shuffle after it.
//
//hipgo:kernel
func uniformReturn(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	if t.BlockIdx().X%2 == 1 {
		out[i*Outs] = in[i]
		return
	}
	out[i*Outs+1] = kernel.ShflDown(t, in[i], 1)
}

// branches shuffles in both branches of an if whose condition is the
// same across the block, and an else if.
//
//hipgo:kernel
func branches(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	b := t.BlockIdx().X
	if b%3 == 0 {
		v := kernel.ShflXor(t, in[i], 1)
		out[i*Outs] = v
	} else if b%3 == 1 {
		out[i*Outs+1] = kernel.ReduceAddSync(t, kernel.FullMask, in[i])
		t.SyncThreads()
		fout[i*Outs] = kernel.ShflUp(t, fin[i], 3)
	} else {
		out[i*Outs+2] = int32(kernel.Ballot(t, in[i] > 0))
	}
	out[i*Outs+3] = kernel.ShflDown(t, in[i], 2)
}

// warpTotal is the sum of v over the block of a generic device function
// that synchronizes, returning early where the block is one work-item or
// one warp.
func warpTotal[T kernel.Shuffleable](t kernel.Thread, v T, part *[32]T) T {
	bd, ws := t.BlockDim().X, t.WarpSize()
	if bd == 1 {
		return v
	}
	for off := ws / 2; off > 0; off >>= 1 {
		v += kernel.ShflDown(t, v, off)
	}
	if bd <= ws {
		return v
	}
	lane, w := t.Lane(), t.ThreadIdx().X/ws
	if lane == 0 {
		part[w] = v
	}
	t.SyncThreads()
	var s T
	for x := 0; x < bd/ws; x++ {
		s += part[x]
	}
	t.SyncThreads()
	return s
}

// generic calls warpTotal with int32 and float32 (type arguments other
// than its parameter's name), at the top level and in a loop with
// barriers.
//
//hipgo:kernel
func generic(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	parti := kernel.Shared[[32]int32](t)
	partf := kernel.Shared[[32]float32](t)
	i := t.GlobalX()
	s := warpTotal(t, in[i], parti)
	out[i*Outs] = s
	f := warpTotal(t, fin[i], partf)
	fout[i*Outs] = f
	for r := 0; r < 2; r++ {
		s = warpTotal(t, in[i]+int32(r), parti)
		out[i*Outs+1+r] = s
	}
}

// uniformCount shuffles in a loop whose bound is assigned only values
// the same across the block, under a condition that is too.
//
//hipgo:kernel
func uniformCount(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	k := 1
	if t.BlockIdx().X > 0 {
		k = 3
	}
	v, f := in[i], fin[i]
	for j := 0; j < k; j++ {
		v += kernel.ShflXor(t, v, 1<<j)
		f += kernel.ShflXor(t, f, 1<<j)
	}
	out[i*Outs] = v
	fout[i*Outs] = f
}

// logScan is each warp's inclusive scan by shuffles up in log steps, of
// integers (which fission sums lane by lane where every lane runs it)
// and of floats (which keep the rounds), with the bound as a call, a
// constant and a local.
//
//hipgo:kernel
func logScan(t kernel.Thread, in []int32, fin []float32, out []int32, fout []float32) {
	i := t.GlobalX()
	lane, ws := t.Lane(), t.WarpSize()
	v, w, f := in[i], in[i]*3, fin[i]
	for d := 1; d < t.WarpSize(); d <<= 1 {
		n := kernel.ShflUp(t, v, d)
		if lane >= d {
			v += n
		}
	}
	for d := 1; d < ws; d *= 2 {
		n := kernel.ShflUp(t, w, d)
		if t.Lane() >= d {
			w += n
		}
	}
	for d := 1; d < 32; d <<= 1 {
		n := kernel.ShflUp(t, f, d)
		if lane >= d {
			f += n
		}
	}
	out[i*Outs] = v
	out[i*Outs+1] = w
	fout[i*Outs] = f
}
