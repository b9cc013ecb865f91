package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A chain of blocks, each waiting for the one before with acquire order
// and publishing with release, in ticket order (OrderedBlockID), reading
// with 16-byte loads: every agent gives the inclusive sums plain Go does,
// and the counter counts every block.
func TestChainedBlocksDifferential(t *testing.T) {
	const blocks = 96
	in := make([]int32, blocks*faulty.ChainChunk)
	for i := range in {
		in[i] = int32(i*7919%2001) - 1000
	}
	want := make([]int64, blocks)
	var run int64
	for b := range want {
		for _, v := range in[b*faulty.ChainChunk : (b+1)*faulty.ChainChunk] {
			run += int64(v)
		}
		want[b] = run
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]int64, error) {
		bin, err := buffer.FromSlice(dev, in)
		if err != nil {
			return nil, err
		}
		defer bin.Free()
		counter, err := buffer.FromSlice(dev, []uint32{0, 0})
		if err != nil {
			return nil, err
		}
		defer counter.Free()
		flags, err := buffer.New[uint32](dev, blocks)
		if err != nil {
			return nil, err
		}
		defer flags.Free()
		sums, err := buffer.New[int64](dev, blocks)
		if err != nil {
			return nil, err
		}
		defer sums.Free()
		out, err := buffer.New[int64](dev, blocks)
		if err != nil {
			return nil, err
		}
		defer out.Free()
		if err := flags.Memset(0); err != nil {
			return nil, err
		}
		s, err := stream.New(dev)
		if err != nil {
			return nil, err
		}
		defer s.Destroy()
		if err := faulty.LaunchChainSum(s, gpu.D1(blocks), gpu.D1(64), 0, bin, counter, flags, sums, out); err != nil {
			return nil, err
		}
		if err := s.Synchronize(); err != nil {
			return nil, err
		}
		got, err := out.ToSlice()
		if err != nil {
			return nil, err
		}
		c, err := counter.ToSlice()
		if err != nil {
			return nil, err
		}
		assert.Equal(t, []uint32{blocks, blocks}, c, "on %s: tickets and blocks", dev)
		assert.Equal(t, want, got, "on %s", dev)
		return got, nil
	})
}

// kernel.DynamicShared in device functions: each block's part comes back
// reversed on every agent.
func TestDynamicSharedInDeviceFunctionDifferential(t *testing.T) {
	const block, blocks = 128, 5
	in := make([]float32, block*blocks)
	for i := range in {
		in[i] = float32(i)
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		x, err := buffer.FromSlice(dev, in)
		if err != nil {
			return nil, err
		}
		defer x.Free()
		s, err := stream.New(dev)
		if err != nil {
			return nil, err
		}
		defer s.Destroy()
		if err := faulty.LaunchDynReverse(s, gpu.D1(blocks), gpu.D1(block), 4*block, x); err != nil {
			return nil, err
		}
		if err := s.Synchronize(); err != nil {
			return nil, err
		}
		got, err := x.ToSlice()
		if err != nil {
			return nil, err
		}
		for i, v := range got {
			assert.InDelta(t, float32(i/block*block+block-1-i%block), v, 0, "on %s: x[%d]", dev, i)
		}
		return got, nil
	})
}

// A loaded Go kernel's attributes give its register count on a GPU (the
// driver's NUM_REGS on NVIDIA, .vgpr_count on AMD) and 0 on the cpu agent.
func TestLoadedKernelRegisters(t *testing.T) {
	dev := gputest.Device(t)
	ld, err := faulty.Library.Load(dev)
	require.NoError(t, err)
	f, err := ld.Function("warp_ops")
	require.NoError(t, err)
	if dev.Properties().Driver == "cpu" {
		assert.Zero(t, f.Attributes().NumRegs)
		return
	}
	assert.Positive(t, f.Attributes().NumRegs, "on %s", dev)
}
