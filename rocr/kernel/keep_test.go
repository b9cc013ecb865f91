package kernel_test

import (
	"runtime/metrics"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// goroutinesCreated is the number of goroutines the program has started.
func goroutinesCreated(t *testing.T) uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	require.Equal(t, metrics.KindUint64, s[0].Value.Kind(), "the runtime has no goroutine creation count")
	return s[0].Value.Uint64()
}

// A lockstep kernel's work-items run on coroutines the agent keeps from
// one launch to the next, plain or cooperative: a launch starts no
// goroutine per work-item (under -race, and for a cooperative launch,
// one per work-group, as the agent runs those on their own).
func TestLockstepKeepsCoroutines(t *testing.T) {
	dev, s, m := setup(t)
	const n, block, launches = 8192, 256, 5
	f, err := m.Function("reduce")
	require.NoError(t, err)
	grid, err := module.MaxCooperativeBlocks(f, block, block*4)
	require.NoError(t, err)
	grid = min(grid, 4)
	in, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	defer in.Free()
	require.NoError(t, in.Fill(1))
	out, err := buffer.New[float32](dev, grid)
	require.NoError(t, err)
	defer out.Free()
	for _, cooperative := range []bool{false, true} {
		launch := module.LaunchKernelGGL
		perLaunch := uint64(0)
		if cooperative {
			launch = module.LaunchCooperativeKernel
			perLaunch = uint64(grid)
		}
		if raceflag.Enabled {
			perLaunch = uint64(grid)
		}
		run := func() {
			require.NoError(t, launch(f, gpu.D1(uint32(grid)), gpu.D1(block), block*4, s, in, int64(n), out, int64(grid), uint32(block*4)))
			require.NoError(t, s.Synchronize())
		}
		run() // the first launch makes the coroutines
		before := goroutinesCreated(t)
		for range launches {
			run()
		}
		created := goroutinesCreated(t) - before
		// A few for the runtime and the stream's own work.
		assert.LessOrEqual(t, created, launches*perLaunch+8, "cooperative %v: %d goroutines started by %d launches of %d groups of %d work-items", cooperative, created, launches, grid, block)
		parts, err := out.ToSlice()
		require.NoError(t, err)
		var sum float32
		for _, p := range parts {
			sum += p
		}
		assert.InDelta(t, float32(n), sum, 0, "cooperative %v", cooperative)
	}
}
