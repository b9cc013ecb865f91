package gokernel_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/lockstep"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// lockLaunch is the shape of package lockstep's launchers.
type lockLaunch = func(*stream.Stream, gpu.Dim3, gpu.Dim3, int, buffer.Array[int32], buffer.Array[float32], buffer.Array[int32], buffer.Array[float32]) error

// lockstepCases are package lockstep's kernels with the blocks they run
// in: full warps, partial warps (a block that is not a multiple of the
// warp), two dimensions; fails is the failure both paths must give.
var lockstepCases = []struct {
	name        string
	launch      lockLaunch
	grid, block gpu.Dim3
	fails       string
	where       bool // the coroutines name the line too (not the scheduler's)
}{
	{name: "shuffles", launch: lockstep.LaunchShuffles, grid: gpu.D1(3), block: gpu.D1(96)},
	{name: "shuffles", launch: lockstep.LaunchShuffles, grid: gpu.D1(2), block: gpu.D1(80)},
	{name: "nested", launch: lockstep.LaunchNested, grid: gpu.D1(2), block: gpu.D1(64)},
	{name: "votes", launch: lockstep.LaunchVotes, grid: gpu.D1(2), block: gpu.D1(70)},
	{name: "reductions", launch: lockstep.LaunchReductions, grid: gpu.D1(2), block: gpu.D1(64)},
	{name: "reductions", launch: lockstep.LaunchReductions, grid: gpu.D1(1), block: gpu.D1(50)},
	{name: "masked", launch: lockstep.LaunchMasked, grid: gpu.D1(2), block: gpu.D1(64)},
	{name: "masked", launch: lockstep.LaunchMasked, grid: gpu.D1(1), block: gpu.D1(48)},
	{name: "returned", launch: lockstep.LaunchReturned, grid: gpu.D1(2), block: gpu.D1(96)},
	{name: "warpScan", launch: lockstep.LaunchWarpScan, grid: gpu.D1(3), block: gpu.D1(256)},
	{name: "treeReduce", launch: lockstep.LaunchTreeReduce, grid: gpu.D1(4), block: gpu.D1(256)},
	{name: "blockReduce", launch: lockstep.LaunchBlockReduce, grid: gpu.D1(2), block: gpu.D1(128)},
	{name: "grid2D", launch: lockstep.LaunchGrid2D, grid: gpu.D1(2), block: gpu.Dim3{X: 16, Y: 6, Z: 1}},
	{name: "uniformReturn", launch: lockstep.LaunchUniformReturn, grid: gpu.D1(4), block: gpu.D1(64)},
	{name: "branches", launch: lockstep.LaunchBranches, grid: gpu.D1(6), block: gpu.D1(64)},
	{name: "generic", launch: lockstep.LaunchGeneric, grid: gpu.D1(2), block: gpu.D1(128)},
	{name: "generic", launch: lockstep.LaunchGeneric, grid: gpu.D1(2), block: gpu.D1(32)},
	{name: "generic", launch: lockstep.LaunchGeneric, grid: gpu.D1(3), block: gpu.D1(1)},
	{name: "uniformCount", launch: lockstep.LaunchUniformCount, grid: gpu.D1(3), block: gpu.D1(64)},
	{name: "logScan", launch: lockstep.LaunchLogScan, grid: gpu.D1(2), block: gpu.D1(128)},
	{name: "logScan", launch: lockstep.LaunchLogScan, grid: gpu.D1(2), block: gpu.D1(80)},
	{name: "logScan", launch: lockstep.LaunchLogScan, grid: gpu.D1(2), block: gpu.Dim3{X: 16, Y: 4, Z: 1}},
	{name: "badWidth", launch: lockstep.LaunchBadWidth, grid: gpu.D1(1), block: gpu.D1(64),
		fails: "shuffle width 12: want a power of two from 1 to 32", where: true},
	{name: "badMask", launch: lockstep.LaunchBadMask, grid: gpu.D1(1), block: gpu.D1(64),
		fails: "work-item 1 calls a shuffle with mask 0x1, which does not name its lane 1", where: true},
	{name: "neverCompletes", launch: lockstep.LaunchNeverCompletes, grid: gpu.D1(1), block: gpu.D1(64),
		fails: "warp operation never completes: work-item 0 is at a shuffle with mask 0xffffffff"},
	{name: "mixedMasks", launch: lockstep.LaunchMixedMasks, grid: gpu.D1(1), block: gpu.D1(64),
		fails: "warp operation never completes: work-item 4 is at a vote with mask 0xf0f0f1f"},
}

// lockstepRun is what one run of a kernel gave: its outputs' bits and
// its failure.
type lockstepRun struct {
	out  []int32
	fout []uint32
	err  error
}

func runLockstep(t *testing.T, dev *gpu.Device, launch lockLaunch, grid, block gpu.Dim3) lockstepRun {
	n := int(grid.X * block.X * block.Y * block.Z)
	in, fin := make([]int32, n), make([]float32, n)
	for i := range in {
		in[i] = int32(i*2654435761%100003) - 50000
		fin[i] = float32(i*7919%1000) * 1.37e-3
		if i%5 == 0 {
			fin[i] += 1.5e7
		}
		if i%7 == 0 {
			fin[i] = -fin[i]
		}
	}
	bin, err := buffer.FromSlice(dev, in)
	require.NoError(t, err)
	defer bin.Free()
	bfin, err := buffer.FromSlice(dev, fin)
	require.NoError(t, err)
	defer bfin.Free()
	out, err := buffer.New[int32](dev, n*lockstep.Outs)
	require.NoError(t, err)
	defer out.Free()
	fout, err := buffer.New[float32](dev, n*lockstep.Outs)
	require.NoError(t, err)
	defer fout.Free()
	require.NoError(t, out.Memset(0))
	require.NoError(t, fout.Memset(0))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	var r lockstepRun
	if r.err = launch(s, grid, block, 0, bin, bfin, out, fout); r.err == nil {
		r.err = s.Synchronize()
	}
	got, err := out.ToSlice()
	require.NoError(t, err)
	fgot, err := fout.ToSlice()
	require.NoError(t, err)
	r.out = got
	for _, f := range fgot {
		r.fout = append(r.fout, math.Float32bits(f))
	}
	return r
}

// failure is a kernel failure's message without where it happened: the
// coroutines name the warp operation's line, the fission its statement's.
func failure(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	if i := strings.Index(msg, "panicked"); i >= 0 {
		if j := strings.Index(msg[i:], ": "); j >= 0 {
			return msg[i+j+2:]
		}
	}
	return msg
}

// TestLockstepFission runs each kernel of package lockstep by loop
// fission and as coroutines (kernelimpl.SetCoroutines): the results must
// be the same bits, the failures the same messages.
func TestLockstepFission(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	t.Cleanup(func() { kernelimpl.SetCoroutines(false) })
	for _, c := range lockstepCases {
		t.Run(fmt.Sprintf("%s/%dx%d", c.name, c.grid.X, c.block.X*c.block.Y), func(t *testing.T) {
			kernelimpl.SetCoroutines(false)
			fis := runLockstep(t, dev, c.launch, c.grid, c.block)
			kernelimpl.SetCoroutines(true)
			co := runLockstep(t, dev, c.launch, c.grid, c.block)
			kernelimpl.SetCoroutines(false)
			if c.fails != "" {
				require.Error(t, co.err)
				require.Error(t, fis.err)
				assert.Contains(t, failure(co.err), c.fails)
				assert.Equal(t, failure(co.err), failure(fis.err))
				if c.where {
					assert.Equal(t, co.err.Error(), fis.err.Error(), "the same line named")
				}
				return
			}
			require.NoError(t, co.err)
			require.NoError(t, fis.err)
			assert.Equal(t, co.out, fis.out)
			assert.Equal(t, co.fout, fis.fout)
			assert.True(t, slices.ContainsFunc(co.out, func(v int32) bool { return v != 0 }) || slices.ContainsFunc(co.fout, func(v uint32) bool { return v != 0 }), "the kernel wrote its results")
		})
	}
}

// TestLockstepKernelsFission checks that the generator gives each kernel
// of package lockstep a fission: otherwise TestLockstepFission compares
// the coroutines with themselves.
func TestLockstepKernelsFission(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("internal", "lockstep", "kernels_gen.go"))
	require.NoError(t, err)
	for _, c := range lockstepCases {
		assert.True(t, strings.Contains(string(src), fmt.Sprintf("runs %s on the cpu agent by loop fission", c.name)), c.name)
	}
}
