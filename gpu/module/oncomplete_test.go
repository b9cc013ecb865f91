package module_test

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// A completion check runs once per launch, after the kernel, and its
// error is what the stream's Synchronize (or Query) returns, sticky as a
// failed kernel's.
func TestOnComplete(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	x, err := buffer.FromSlice(dev, []float32{1, 2, 3, 4})
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()

	var runs atomic.Int32
	var seen []float32 // what the kernel had written when the check ran
	ok := func() error {
		runs.Add(1)
		return nil
	}
	launch := func(check func() error) error {
		var a module.Args
		a.Ptr(x).Float32(2).Int32(4).OnComplete(check)
		return module.LaunchKernel(f, gpu.D1(1), gpu.D1(4), &a, 0, s)
	}
	for range 3 {
		require.NoError(t, launch(ok))
	}
	require.NoError(t, s.Synchronize())
	assert.EqualValues(t, 3, runs.Load(), "each launch's check ran once, before Synchronize returned")

	// The check sees what the kernel wrote: it runs after it.
	host, err := buffer.NewHost[float32](dev, 4)
	require.NoError(t, err)
	defer host.Free()
	copy(host.Slice(), []float32{1, 2, 3, 4})
	var a module.Args
	a.Ptr(host).Float32(2).Int32(4).OnComplete(func() error {
		seen = append(seen, host.Slice()...)
		return nil
	})
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(4), &a, 0, s))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, []float32{2, 4, 6, 8}, seen)

	boom := errors.New("fault record: index out of range")
	require.NoError(t, launch(func() error { return boom }))
	err = s.Synchronize()
	require.ErrorIs(t, err, boom)
	assert.ErrorIs(t, s.Query(), boom, "sticky")
	assert.ErrorIs(t, s.Err(), boom)
}

// Query, not only Synchronize, runs the checks of finished work.
func TestOnCompleteQuery(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	x, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	boom := errors.New("late")
	var a module.Args
	a.Ptr(x).Float32(2).Int32(4).OnComplete(func() error { return boom })
	require.NoError(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(4), &a, 0, s))
	require.Eventually(t, func() bool { return !errors.Is(s.Query(), gpu.ErrNotReady) }, 10*time.Second, time.Millisecond)
	assert.ErrorIs(t, s.Query(), boom)
}

// A completion check costs the launch no allocation.
func TestOnCompleteAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	x, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	defer x.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	check := func() error { return nil }
	launch := func() {
		var a module.Args
		a.Ptr(x).Float32(2).Int32(4).OnComplete(check)
		_ = module.LaunchKernel(f, gpu.D1(1), gpu.D1(4), &a, 0, s)
		_ = s.Synchronize()
	}
	launch()
	assert.Zero(t, testing.AllocsPerRun(100, launch))
}

// Launches with completion checks race Synchronize, Query and Destroy of
// their stream: every check runs at most once, none after it could read
// what its launch left, and a launch after Destroy fails cleanly.
func TestOnCompleteRaces(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	x, err := buffer.New[float32](dev, 64)
	require.NoError(t, err)
	defer x.Free()
	for round := range 20 {
		s, err := stream.New(dev)
		require.NoError(t, err)
		var launched, ran atomic.Int32
		check := func() error {
			ran.Add(1)
			return nil
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 25 {
					var a module.Args
					a.Ptr(x).Float32(1).Int32(64).OnComplete(check)
					if module.LaunchKernel(f, gpu.D1(1), gpu.D1(64), &a, 0, s) == nil {
						launched.Add(1)
					}
				}
			})
		}
		wg.Go(func() {
			for range 25 {
				_ = s.Synchronize()
				_ = s.Query()
			}
		})
		if round%2 == 1 {
			wg.Go(func() { _ = s.Destroy() })
		}
		wg.Wait()
		_ = s.Destroy()
		assert.LessOrEqual(t, ran.Load(), launched.Load(), "round %d: a check ran twice", round)
		if round%2 == 0 {
			assert.Equal(t, launched.Load(), ran.Load(), "round %d: every completed launch's check ran", round)
		}
		var a module.Args
		a.Ptr(x).Float32(1).Int32(64).OnComplete(check)
		assert.Error(t, module.LaunchKernel(f, gpu.D1(1), gpu.D1(64), &a, 0, s), "a launch on a destroyed stream")
	}
}
