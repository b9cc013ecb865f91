package k

import "github.com/hipgo/hipgo/rocr/kernel"

// Publish writes a block's value, then its flag with release order; a
// reader waits for the flag with acquire order, as a look-back does.
//
//hipgo:kernel
func Publish(t kernel.Thread, vals []int64, flags []uint32, counters []uint64, f []float32) {
	b := t.BlockIdx().X
	if t.ThreadIdx().X == 0 {
		vals[b] = int64(b)
		kernel.ThreadFence()
		kernel.AtomicStore(&flags[b], 1, kernel.Release, kernel.ScopeDevice)
		if b > 0 {
			for kernel.AtomicLoad(&flags[b-1], kernel.Acquire, kernel.ScopeDevice) == 0 {
			}
			_ = kernel.AtomicLoad(&vals[b-1], kernel.Relaxed, kernel.ScopeSystem)
		}
		kernel.ThreadFenceBlock()
		kernel.ThreadFenceSystem()
		kernel.AtomicAddScoped(&counters[0], 1, kernel.AcqRel, kernel.ScopeDevice)
		kernel.AtomicCASScoped(&counters[1], 0, 1, kernel.SeqCst, kernel.ScopeSystem)
		kernel.AtomicExchScoped(&flags[0], 2, kernel.Relaxed, kernel.ScopeBlock)
		kernel.AtomicMinScoped(&vals[0], -1, kernel.Acquire, kernel.ScopeDevice)
		kernel.AtomicMaxScoped(&flags[0], 9, kernel.Release, kernel.ScopeDevice)
		kernel.AtomicAndScoped(&counters[2], 3, kernel.Relaxed, kernel.ScopeDevice)
		kernel.AtomicOrScoped(&counters[2], 4, kernel.Relaxed, kernel.ScopeDevice)
		kernel.AtomicXorScoped(&vals[1], 5, kernel.SeqCst, kernel.ScopeDevice)
		kernel.AtomicSubScoped(&flags[1], 5, kernel.AcqRel, kernel.ScopeBlock)
		kernel.AtomicStore(&f[0], 1.5, kernel.SeqCst, kernel.ScopeBlock)
		f[1] = kernel.AtomicLoad(&f[0], kernel.SeqCst, kernel.ScopeDevice)
	}
}

// Warps uses the warp operations with a mask and a width, and the warp
// reductions.
//
//hipgo:kernel
func Warps(t kernel.Thread, x []int32, y []float64, u []uint64, w int) {
	i := t.GlobalX()
	lane := t.Lane()
	v := x[i]
	if lane < 16 {
		v = kernel.ShflSync(t, 0xffff, v, lane+1, 8)
		v += kernel.ShflXorSync(t, 0xffff, v, 1, 16)
		kernel.SyncWarpMask(t, 0xffff)
	}
	v = kernel.ShflUpSync(t, kernel.FullMask, v, 1, w)
	y[i] = kernel.ShflDownSync(t, kernel.FullMask, y[i], 2, w)
	u[i] = kernel.BallotSync(t, kernel.FullMask, v > 0)
	if kernel.AnySync(t, kernel.FullMask, v < 0) && kernel.AllSync(t, kernel.FullMask, v != 3) {
		v++
	}
	x[i] = kernel.ReduceAddSync(t, kernel.FullMask, v) + kernel.ReduceMinSync(t, kernel.FullMask, v) +
		kernel.ReduceMaxSync(t, kernel.FullMask, v) + kernel.ReduceAndSync(t, kernel.FullMask, v) +
		kernel.ReduceOrSync(t, kernel.FullMask, v) + kernel.ReduceXorSync(t, kernel.FullMask, v)
	y[i] = kernel.ReduceAddSync(t, 0xf0f0, y[i]) + kernel.ReduceMaxSync(t, kernel.FullMask, y[i])
	u[i] += kernel.ReduceAddSync(t, kernel.FullMask, u[i]) + kernel.ReduceXorSync(t, kernel.FullMask, u[i])
}

// Tickets takes each block's ordered id.
//
//hipgo:kernel
func Tickets(t kernel.Thread, counter []uint32, ids []int32) {
	id := kernel.OrderedBlockID(t, &counter[0])
	if t.ThreadIdx().X == 0 {
		ids[t.BlockIdx().X] = int32(id)
	}
}

// Copy4 copies 16 bytes a work-item, four floats and two int64s.
//
//hipgo:kernel
func Copy4(t kernel.Thread, x, y []float32, a, b []int64) {
	i := t.GlobalX()
	if i < len(y)/4 {
		v := kernel.Load4(x, i)
		v[0] += 1
		kernel.Store4(y, i, v)
	}
	if i < len(b)/2 {
		kernel.Store2(b, i, kernel.Load2(a, i))
	}
}

// dynFill sets the block's dynamic shared memory, a device function.
func dynFill(t kernel.Thread, v float32) {
	s := kernel.DynamicShared[float32](t)
	if i := t.ThreadIdx().X; i < len(s) {
		s[i] = v * float32(i)
	}
}

// dynAt reads it, without its length.
func dynAt(t kernel.Thread, i int) float32 { return kernel.DynamicShared[float32](t)[i] }

// DynDevice uses dynamic shared memory through device functions only.
//
//hipgo:kernel
func DynDevice(t kernel.Thread, out []float32) {
	dynFill(t, 2)
	t.SyncThreads()
	out[t.GlobalX()] = dynAt(t, t.BlockDim().X-1-t.ThreadIdx().X)
}

// Unrolled keeps its per-item array in registers: each loop over it
// unrolls in full (//hipgo:unroll).
//
//hipgo:kernel
func Unrolled(t kernel.Thread, x []float32) {
	var v [4]float32
	//hipgo:unroll
	for j := 0; j < 4; j++ {
		v[j] = x[4*t.GlobalX()+j]
	}
	//hipgo:unroll
	for j := range v {
		x[4*t.GlobalX()+j] = v[j] * 2
	}
}
