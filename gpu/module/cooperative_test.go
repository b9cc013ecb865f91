package module_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type twoPhaseArgs struct {
	X, Out rocr.Ptr[int32]
	N      int32
	Mode   int32 // 0: both phases; 1: group 0 panics first; 2: group 0 waits for cancellation; 3: group 0 returns at once
}

// twoPhase writes X in its first phase and, after the grid barrier, reads
// the part of X that the mirror-image block wrote: Out[i] = X[n-1-i]. A
// second barrier reuses the first; the third phase adds the first element,
// written by block 0, to every element.
var twoPhase = kernel.Define("test_two_phase", func(g *kernel.Block, a *twoPhaseArgs) {
	n := int(a.N)
	lo, hi := g.Span(0, n)
	if g.BlockIdx().X == 0 {
		switch a.Mode {
		case 1:
			panic("group 0 fails before the barrier")
		case 2:
			for !g.Canceled() {
				time.Sleep(time.Millisecond)
			}
			return
		case 3:
			return
		}
	}
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] = int32(lo + i + 1)
	}
	g.GridSync()
	for i := lo; i < hi; i++ {
		*a.Out.At(g, i) = *a.X.At(g, n-1-i)
	}
	g.GridSync()
	first := *a.Out.At(g, 0)
	for i := lo; i < hi; i++ {
		*a.X.At(g, i) = *a.Out.At(g, i) + first
	}
})

func twoPhaseSetup(t *testing.T) (*gpu.Device, *module.Function, int) {
	dev := setup(t)
	m, err := module.Load(dev, kernel.NewSet("coop", twoPhase))
	require.NoError(t, err)
	f, err := m.Function("test_two_phase")
	require.NoError(t, err)
	blocks, err := module.MaxCooperativeBlocks(f, 64, 0)
	require.NoError(t, err)
	require.Positive(t, blocks)
	return dev, f, blocks
}

func TestCooperativeTwoPhases(t *testing.T) {
	dev, f, blocks := twoPhaseSetup(t)
	assert.Equal(t, dev.Properties().MultiProcessorCount, blocks, "one block per worker on the cpu agent")
	const block = 64
	n := blocks*block - 5 // a partial last block
	x, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer x.Free()
	out, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer out.Free()
	for range 5 {
		require.NoError(t, x.Memset(0))
		require.NoError(t, module.LaunchCooperativeKernel(f, gpu.D1(uint32(blocks)), gpu.D1(block), 0, nil, x, out, int32(n), int32(0)))
		got, err := out.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(n-i), v, "element %d read what another block wrote", i)
		}
		final, err := x.ToSlice()
		require.NoError(t, err)
		for i, v := range final {
			require.Equal(t, int32(n-i+n), v, "element %d after the second barrier", i)
		}
	}
	// Typed arguments, on a stream.
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	var a module.Args
	require.NoError(t, f.LaunchCooperativeArgs(s, gpu.D1(uint32(blocks)), gpu.D1(block), 0, a.Ptr(x).Ptr(out).Int32(int32(n)).Int32(0)))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(n), got[0])
}

func TestCooperativeLaunchTooLarge(t *testing.T) {
	dev, f, blocks := twoPhaseSetup(t)
	x, err := buffer.New[int32](dev, 64*(blocks+1))
	require.NoError(t, err)
	defer x.Free()
	err = f.LaunchCooperative(nil, gpu.D1(uint32(blocks+1)), gpu.D1(64), 0, x, x, int32(64*(blocks+1)), int32(0))
	require.ErrorIs(t, err, gpu.ErrCooperativeLaunchTooLarge)
	var ge *gpu.Error
	require.True(t, errors.As(err, &ge))
	assert.EqualValues(t, 720, ge.Code)
	assert.Equal(t, "hipErrorCooperativeLaunchTooLarge", ge.Code.Name())
	assert.Contains(t, err.Error(), "grid of")
	assert.NoError(t, dev.Synchronize(), "nothing was queued")
	err = f.LaunchCooperative(nil, gpu.D1(1), gpu.D1(2048), 0, x, x, int32(1), int32(0))
	assert.Error(t, err, "a block larger than the kernel allows")
}

// GridSync outside a cooperative launch fails the dispatch, and a group
// that fails or is cancelled never leaves the others waiting.
func TestGridSyncFailures(t *testing.T) {
	dev, f, blocks := twoPhaseSetup(t)
	n := blocks * 64
	x, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()

	require.NoError(t, f.Launch(s, gpu.D1(uint32(blocks)), gpu.D1(64), 0, x, x, int32(n), int32(0)))
	err = s.Synchronize()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GridSync in a launch that is not cooperative")

	s2, err := stream.New(dev)
	require.NoError(t, err)
	defer s2.Destroy()
	if blocks > 1 {
		require.NoError(t, f.LaunchCooperative(s2, gpu.D1(uint32(blocks)), gpu.D1(64), 0, x, x, int32(n), int32(1)))
		err = s2.Synchronize()
		require.Error(t, err)
		assert.Contains(t, err.Error(), "group 0 fails before the barrier")
		assert.NotContains(t, err.Error(), "grid barrier broken")
	}

	// A group that returns leaves the barrier: the others go on.
	s4, err := stream.New(dev)
	require.NoError(t, err)
	defer s4.Destroy()
	y, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer y.Free()
	require.NoError(t, x.Memset(0))
	require.NoError(t, y.Memset(0))
	require.NoError(t, f.LaunchCooperative(s4, gpu.D1(uint32(blocks)), gpu.D1(64), 0, x, y, int32(n), int32(3)))
	require.NoError(t, s4.Synchronize())
	got, err := y.ToSlice()
	require.NoError(t, err)
	assert.Zero(t, got[0], "group 0 wrote nothing")
	if blocks >= 3 {
		assert.Equal(t, int32(n-64), got[64], "group 1 read what group %d wrote", blocks-2)
	}

	s3, err := stream.New(dev)
	require.NoError(t, err)
	defer s3.Destroy()
	require.NoError(t, s3.SetKernelTimeout(50*time.Millisecond))
	require.NoError(t, f.LaunchCooperative(s3, gpu.D1(uint32(blocks)), gpu.D1(64), 0, x, x, int32(n), int32(2)))
	err = s3.Synchronize()
	require.ErrorIs(t, err, hsa.ErrTimeout)
}

// Cooperative launches race with each other and with plain launches on
// other streams.
func TestCooperativeRaces(t *testing.T) {
	dev, f, blocks := twoPhaseSetup(t)
	n := blocks * 32
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			x, err := buffer.New[int32](dev, n)
			if !assert.NoError(t, err) {
				return
			}
			defer x.Free()
			out, err := buffer.New[int32](dev, n)
			if !assert.NoError(t, err) {
				return
			}
			defer out.Free()
			for range 10 {
				assert.NoError(t, f.LaunchCooperative(s, gpu.D1(uint32(blocks)), gpu.D1(32), 0, x, out, int32(n), int32(0)))
			}
			got, err := out.ToSlice()
			if assert.NoError(t, err) {
				assert.Equal(t, int32(n), got[0])
				assert.Equal(t, int32(1), got[n-1])
			}
		}()
	}
	wg.Wait()
}

type syncArgs struct{ Sync int32 }

var gridSyncOnce = kernel.Define("test_grid_sync_once", func(g *kernel.Block, a *syncArgs) {
	if a.Sync != 0 {
		g.GridSync()
	}
})

// BenchmarkCooperativeLaunch is a cooperative launch of as many blocks as
// fit, each meeting the others at one grid barrier, plus synchronize,
// beside a plain launch of the same grid without the barrier.
func BenchmarkCooperativeLaunch(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	require.NoError(b, err)
	m, err := module.Load(dev, kernel.NewSet("coop-bench", gridSyncOnce))
	require.NoError(b, err)
	f, err := m.Function("test_grid_sync_once")
	require.NoError(b, err)
	blocks, err := module.MaxCooperativeBlocks(f, 64, 0)
	require.NoError(b, err)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	var a module.Args
	b.Run("cooperative+GridSync", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			a.Reset()
			if err := f.LaunchCooperativeArgs(s, gpu.D1(uint32(blocks)), gpu.D1(64), 0, a.Int32(1)); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			a.Reset()
			if err := f.LaunchArgs(s, gpu.D1(uint32(blocks)), gpu.D1(64), 0, a.Int32(0)); err != nil {
				b.Fatal(err)
			}
			if err := s.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
