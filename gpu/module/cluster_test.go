package module_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// clusterSetup is test_scale on the test's device with a 64-element
// buffer of ones and a stream.
func clusterSetup(t *testing.T) (*module.Function, *buffer.Buffer[float32], *stream.Stream) {
	t.Helper()
	dev := setup(t)
	m, err := module.Load(dev, set)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Unload() })
	f, err := m.Function("test_scale")
	require.NoError(t, err)
	ones := make([]float32, 64)
	for i := range ones {
		ones[i] = 1
	}
	x, err := buffer.FromSlice(dev, ones)
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Free() })
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return f, x, s
}

// The cpu agent has no clusters: a launch in clusters is refused through
// every entry point, naming the device, and nothing is queued; without
// clusters LaunchKernelEx is an ordinary launch.
func TestClusterNotSupported(t *testing.T) {
	f, x, s := clusterSetup(t)
	assert.False(t, s.Device().Properties().ClusterLaunch)
	cfg := module.LaunchConfig{Grid: gpu.D1(4), Block: gpu.D1(16), Stream: s, Cluster: gpu.D1(2)}
	var a module.Args
	a.Ptr(x).Float32(2).Int32(64)
	for name, err := range map[string]error{
		"LaunchKernelEx":     module.LaunchKernelEx(&cfg, f, x, float32(2), int32(64)),
		"LaunchKernelExArgs": module.LaunchKernelExArgs(&cfg, f, &a),
		"Function.LaunchEx":  f.LaunchEx(&cfg, x, float32(2), int32(64)),
	} {
		require.Error(t, err, name)
		assert.ErrorIs(t, err, gpu.ErrNotSupported, name)
		assert.ErrorIs(t, err, gpu.ErrInvalidConfiguration, name)
		assert.ErrorContains(t, err, s.Device().String(), name)
		assert.ErrorContains(t, err, "no thread-block clusters", name)
	}
	err := f.SetNonPortableClusterSizeAllowed(true)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	_, err = module.MaxPotentialClusterSize(f, &cfg)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorIs(t, module.LaunchKernelEx(nil, f, x, float32(2), int32(64)), gpu.ErrInvalidValue)
	_, err = module.MaxPotentialClusterSize(f, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	cfg.Cluster = gpu.Dim3{}
	require.NoError(t, module.LaunchKernelEx(&cfg, f, x, float32(2), int32(64)))
	cfg.Cooperative, cfg.Grid, cfg.Block = true, gpu.D1(2), gpu.D1(32)
	require.NoError(t, module.LaunchKernelExArgs(&cfg, f, &a))
	require.NoError(t, s.Synchronize())
	got, err := x.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, 4, got[63], 0, "the two launches without clusters ran, the refused ones did not")
}

// The cluster checks, on a device made to look as if it had clusters:
// every dimension at least 1 and dividing the grid's, at most 8 blocks,
// 16 once the kernel allows non-portable sizes.
func TestClusterChecks(t *testing.T) {
	f, x, s := clusterSetup(t)
	defer module.SetClusterLimit(f, 8, false)()
	cfg := func(grid, cluster gpu.Dim3) *module.LaunchConfig {
		return &module.LaunchConfig{Grid: grid, Block: gpu.D1(1), Stream: s, Cluster: cluster}
	}
	for _, c := range []struct {
		grid, cluster gpu.Dim3
		msg           string
	}{
		{gpu.D1(6), gpu.D1(4), "not a whole number of clusters"},
		{gpu.D2(4, 3), gpu.D2(2, 2), "not a whole number of clusters"},
		{gpu.D1(4), gpu.Dim3{X: 2}, "at least 1 in every dimension"},
		{gpu.D1(16), gpu.D1(16), "exceeds the 8"},
		{gpu.D3(4, 4, 2), gpu.D3(2, 2, 4), "not a whole number"},
		{gpu.D3(4, 4, 4), gpu.D3(2, 2, 4), "16 blocks exceeds the 8"},
	} {
		err := module.LaunchKernelEx(cfg(c.grid, c.cluster), f, x, float32(2), int32(64))
		require.Error(t, err, "grid %v cluster %v", c.grid, c.cluster)
		assert.ErrorIs(t, err, gpu.ErrInvalidConfiguration)
		assert.Equal(t, gpu.ErrInvalidConfiguration, gpu.CodeOf(err), "hipLaunchKernelExC's code")
		assert.ErrorContains(t, err, c.msg)
		err = f.LaunchEx(cfg(c.grid, c.cluster), x, float32(2), int32(64))
		assert.Equal(t, gpu.ErrInvalidValue, gpu.CodeOf(err), "hipDrvLaunchKernelEx's code")
		assert.ErrorIs(t, err, gpu.ErrInvalidConfiguration)
	}
	err := module.LaunchKernelEx(cfg(gpu.D1(32), gpu.D1(16)), f, x, float32(2), int32(64))
	assert.ErrorContains(t, err, "SetNonPortableClusterSizeAllowed", "the error says how to go past 8")
	require.NoError(t, s.Synchronize(), "nothing was queued")

	// Checks passed: the packet carries the cluster, which the cpu agent
	// itself refuses as the stream's error.
	defer module.SetClusterLimit(f, 8, true)()
	require.NoError(t, module.LaunchKernelEx(cfg(gpu.D1(32), gpu.D1(16)), f, x, float32(2), int32(64)))
	err = s.Synchronize()
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorContains(t, err, "cluster [16 1 1]")
}

// A launch with a LaunchConfig and no attributes allocates nothing.
func TestLaunchExAllocs(t *testing.T) {
	f, x, s := clusterSetup(t)
	cfg := module.LaunchConfig{Grid: gpu.D1(1), Block: gpu.D1(64), Stream: s}
	var a module.Args
	a.Ptr(x).Float32(1).Int32(64)
	launch := func() {
		if err := module.LaunchKernelExArgs(&cfg, f, &a); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(100, launch))
}

// Allowing non-portable sizes races with launches in clusters and with
// the module's unload: each call fails cleanly or succeeds.
func TestClusterRace(t *testing.T) {
	f, x, s := clusterSetup(t)
	defer module.SetClusterLimit(f, 8, false)()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				_ = f.SetNonPortableClusterSizeAllowed(j%2 == 0)
				err := module.LaunchKernelEx(&module.LaunchConfig{Grid: gpu.D1(8), Block: gpu.D1(1), Stream: s, Cluster: gpu.D1(16)}, f, x, float32(1), int32(64))
				assert.Error(t, err, "8 blocks in clusters of 16, or an unloaded module")
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = f.Module().Unload()
	}()
	wg.Wait()
}
