package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// chain is a look-back in miniature: block b waits, with acquire order,
// for block b-1's flag, adds b to the sum that block published with plain
// stores before its release, and publishes its own.
func chain(t kernel.Thread, sums []int64, flags []uint32) {
	if t.ThreadIdx().X != 0 {
		return
	}
	b := t.BlockIdx().X
	var prev int64
	if b > 0 {
		for kernel.AtomicLoad(&flags[b-1], kernel.Acquire, kernel.ScopeDevice) == 0 {
		}
		prev = sums[b-1] // a plain read, ordered by the acquire
	}
	sums[b] = prev + int64(b)
	kernel.ThreadFence()
	kernel.AtomicStore(&flags[b], 1, kernel.Release, kernel.ScopeDevice)
	kernel.AtomicAddScoped(&sums[len(sums)-1], 1, kernel.Relaxed, kernel.ScopeDevice)
}

type chainArgs struct {
	Sums  rocr.Ptr[int64]
	SumsN int64
	Flags rocr.Ptr[uint32]
	FlN   int64
}

var chainKernel = kernel.Define("chain", func(b *kernel.Block, a *chainArgs) {
	sums, flags := kernelimpl.View(b, a.Sums, a.SumsN), kernelimpl.View(b, a.Flags, a.FlN)
	for i, n := 0, b.Threads(); i < n; i++ {
		chain(b.Thread(i), sums, flags)
	}
})

// Release and acquire order a block's plain writes before the next block's
// plain reads: under -race a missing edge is a reported race, and the sums
// are the triangular numbers.
func TestAcquireReleaseChain(t *testing.T) {
	dev, s, _ := setup(t)
	m, err := module.Load(dev, kernel.NewSet("sdk-chain", chainKernel))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("chain")
	require.NoError(t, err)
	const blocks = 64
	sums, err := buffer.New[int64](dev, blocks+1)
	require.NoError(t, err)
	defer sums.Free()
	flags, err := buffer.New[uint32](dev, blocks)
	require.NoError(t, err)
	defer flags.Free()
	require.NoError(t, sums.Memset(0))
	require.NoError(t, flags.Memset(0))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(blocks), gpu.D1(32), 0, s, sums, int64(blocks+1), flags, int64(blocks)))
	require.NoError(t, s.Synchronize())
	got, err := sums.ToSlice()
	require.NoError(t, err)
	for b := 0; b < blocks; b++ {
		assert.Equal(t, int64(b*(b+1)/2), got[b], "block %d", b)
	}
	assert.Equal(t, int64(blocks), got[blocks])
}

func TestScopedAtomicsOnTheCPU(t *testing.T) {
	var u32 uint32 = 5
	var i64 int64 = -3
	var f64 = 2.5
	assert.Equal(t, uint32(5), kernel.AtomicLoad(&u32, kernel.SeqCst, kernel.ScopeSystem))
	kernel.AtomicStore(&f64, 4.25, kernel.Release, kernel.ScopeBlock)
	assert.InDelta(t, 4.25, kernel.AtomicLoad(&f64, kernel.Acquire, kernel.ScopeDevice), 0)
	assert.Equal(t, int64(-3), kernel.AtomicAddScoped(&i64, 10, kernel.AcqRel, kernel.ScopeDevice))
	assert.Equal(t, int64(7), kernel.AtomicMinScoped(&i64, -8, kernel.Relaxed, kernel.ScopeDevice))
	assert.Equal(t, int64(-8), kernel.AtomicMaxScoped(&i64, 1, kernel.Relaxed, kernel.ScopeDevice))
	assert.Equal(t, int64(1), kernel.AtomicCASScoped(&i64, 1, 6, kernel.SeqCst, kernel.ScopeDevice))
	assert.Equal(t, int64(6), kernel.AtomicSubScoped(&i64, 3, kernel.Relaxed, kernel.ScopeBlock))
	assert.Equal(t, int64(3), kernel.AtomicExchScoped(&i64, 3, kernel.Relaxed, kernel.ScopeBlock))
	assert.Equal(t, uint32(5), kernel.AtomicOrScoped(&u32, 8, kernel.Relaxed, kernel.ScopeDevice))
	assert.Equal(t, uint32(13), kernel.AtomicAndScoped(&u32, 12, kernel.Relaxed, kernel.ScopeDevice))
	assert.Equal(t, uint32(12), kernel.AtomicXorScoped(&u32, 1, kernel.Relaxed, kernel.ScopeDevice))
	assert.Equal(t, uint32(13), u32)
	assert.Equal(t, int64(3), i64)
	kernel.ThreadFence()
	kernel.ThreadFenceBlock()
	kernel.ThreadFenceSystem()
}

type ticketArgs struct {
	Counter rocr.Ptr[uint32]
	CN      int64
	IDs     rocr.Ptr[int32]
	IDsN    int64
}

type ticketFrame struct {
	counter []uint32
	ids     []int32
}

// tickets records each block's ordered id, from every work-item, so a
// work-item that saw another ticket than its block's first shows.
func tickets(t kernel.Thread, counter []uint32, ids []int32) {
	id := kernel.OrderedBlockID(t, &counter[0])
	ids[t.BlockIdx().X*t.BlockDim().X+t.ThreadIdx().X] = int32(id)
}

var ticketKernel = kernel.Define("tickets", func(b *kernel.Block, a *ticketArgs) {
	f := kernelimpl.Frame[ticketFrame](b)
	f.counter, f.ids = kernelimpl.View(b, a.Counter, a.CN), kernelimpl.View(b, a.IDs, a.IDsN)
	b.Lockstep(func(t kernel.Thread) {
		f := kernelimpl.FrameOf[ticketFrame](t)
		tickets(t, f.counter, f.ids)
	})
}, kernelimpl.Lockstep())

// Every block gets one ticket, the same in all its work-items, and the
// tickets are 0 to blocks-1.
func TestOrderedBlockID(t *testing.T) {
	dev, s, _ := setup(t)
	m, err := module.Load(dev, kernel.NewSet("sdk-tickets", ticketKernel))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("tickets")
	require.NoError(t, err)
	const blocks, threads = 200, 64
	counter, err := buffer.New[uint32](dev, 1)
	require.NoError(t, err)
	defer counter.Free()
	ids, err := buffer.New[int32](dev, blocks*threads)
	require.NoError(t, err)
	defer ids.Free()
	require.NoError(t, counter.Memset(0))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(blocks), gpu.D1(threads), 0, s, counter, int64(1), ids, int64(blocks*threads)))
	require.NoError(t, s.Synchronize())
	got, err := ids.ToSlice()
	require.NoError(t, err)
	seen := map[int32]bool{}
	for b := 0; b < blocks; b++ {
		id := got[b*threads]
		assert.False(t, seen[id], "ticket %d twice", id)
		seen[id] = true
		assert.True(t, id >= 0 && id < blocks, "ticket %d", id)
		for i := 1; i < threads; i++ {
			assert.Equal(t, id, got[b*threads+i], "block %d work-item %d", b, i)
		}
	}
	n, err := counter.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, uint32(blocks), n[0])
}
