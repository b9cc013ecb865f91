package gokernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// Kernels with barriers launch without allocating, on either of the cpu
// agent's paths: histogram256 runs by loop fission, scanBlock (warp
// shuffles) and reduceF32 (shuffles under an if, in a device function)
// by loop fission with their warp operations in lockstep and, under
// kernelimpl.SetCoroutines, as coroutines, and two kernels taking turns.
func TestLockstepLaunchAllocs(t *testing.T) {
	goKernels.SetChecked(false)
	defer goKernels.SetChecked(true)
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	data, bins := zeros[uint8](t, dev, 1<<14), zeros[uint32](t, dev, 256)
	scan, sums := zeros[int32](t, dev, 1<<12), zeros[int32](t, dev, 16)
	in, out := zeros[float32](t, dev, 64*64), zeros[float32](t, dev, 64*64)
	for name, launch := range map[string]func() error{
		"histogram256 (fission)": func() error { return LaunchHistogram256(s, gpu.D1(4), gpu.D1(256), 0, data, bins) },
		"scanBlock (fission)":    func() error { return LaunchScanBlock(s, gpu.D1(16), gpu.D1(256), 0, scan, sums) },
		"reduceF32 (fission)":    func() error { return LaunchReduceF32(s, gpu.D1(4), gpu.D1(256), 256*4, in, out) },
		"scanBlock (coroutines)": func() error {
			kernelimpl.SetCoroutines(true)
			defer kernelimpl.SetCoroutines(false)
			if err := LaunchScanBlock(s, gpu.D1(16), gpu.D1(256), 0, scan, sums); err != nil {
				return err
			}
			return s.Synchronize() // the switch holds while the groups run
		},
		// Two kernels taking turns on the same workers keep their frames.
		"histogram256 and transpose in turn": func() error {
			if err := LaunchHistogram256(s, gpu.D1(4), gpu.D1(256), 0, data, bins); err != nil {
				return err
			}
			return LaunchTranspose(s, gpu.D2(2, 2), gpu.D2(32, 8), 0, out, in, 64, 64)
		},
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
