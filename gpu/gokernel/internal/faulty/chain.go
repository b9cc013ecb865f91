package faulty

import "github.com/hipgo/hipgo/rocr/kernel"

// ChainChunk is how many int32s chainSum's block sums: four 16-byte loads.
const ChainChunk = 16

// chainSum is a look-back in miniature: each block takes a ticket in the
// order blocks started, sums its chunk of in with vector loads, waits for
// the block before it to publish its inclusive sum (acquire), and
// publishes its own (release) after a fence. out[k] is the inclusive sum
// of chunks 0 to k; counter[1] counts the blocks.
//
//hipgo:kernel
func chainSum(t kernel.Thread, in []int32, counter, flags []uint32, sums, out []int64) {
	b := kernel.OrderedBlockID(t, &counter[0])
	if t.ThreadIdx().X != 0 {
		return
	}
	var s int64
	for j := 0; j < ChainChunk/4; j++ {
		v := kernel.Load4(in, b*ChainChunk/4+j)
		s += int64(v[0]) + int64(v[1]) + int64(v[2]) + int64(v[3])
	}
	var prev int64
	if b > 0 {
		for kernel.AtomicLoad(&flags[b-1], kernel.Acquire, kernel.ScopeDevice) == 0 {
		}
		prev = sums[b-1]
	}
	sums[b] = prev + s
	kernel.ThreadFence()
	kernel.AtomicStore(&flags[b], 1, kernel.Release, kernel.ScopeDevice)
	out[b] = prev + s
	kernel.AtomicAddScoped(&counter[1], 1, kernel.Relaxed, kernel.ScopeSystem)
}

// dynReverse reverses each block's part of x through dynamic shared memory
// that only its device functions name: one float32 a work-item.
//
//hipgo:kernel
func dynReverse(t kernel.Thread, x []float32) {
	i := t.GlobalX()
	stash(t, x[i])
	t.SyncThreads()
	x[i] = unstash(t, t.BlockDim().X-1-t.ThreadIdx().X)
}

func stash(t kernel.Thread, v float32) {
	s := kernel.DynamicShared[float32](t)
	s[t.ThreadIdx().X] = v
}

func unstash(t kernel.Thread, j int) float32 { return kernel.DynamicShared[float32](t)[j] }
