package gokernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// Kernels with barriers launch without allocating, on either of the cpu
// agent's paths: histogram256 runs by loop fission, scanBlock (warp
// shuffles) as coroutines.
func TestLockstepLaunchAllocs(t *testing.T) {
	goKernels.SetChecked(false)
	defer goKernels.SetChecked(true)
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	data, bins := zeros[uint8](t, dev, 1<<14), zeros[uint32](t, dev, 256)
	scan, sums := zeros[int32](t, dev, 1<<12), zeros[int32](t, dev, 16)
	for name, launch := range map[string]func() error{
		"histogram256 (fission)": func() error { return LaunchHistogram256(s, gpu.D1(4), gpu.D1(256), 0, data, bins) },
		"scanBlock (coroutines)": func() error { return LaunchScanBlock(s, gpu.D1(16), gpu.D1(256), 0, scan, sums) },
	} {
		run := func() {
			require.NoError(t, launch())
			require.NoError(t, s.Synchronize())
		}
		for range 5 {
			run()
		}
		testenv.SkipAllocsUnderRace(t)
		assert.Zero(t, testing.AllocsPerRun(50, run), "%s + Synchronize allocations", name)
	}
}
