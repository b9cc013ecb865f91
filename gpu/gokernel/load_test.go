package gokernel_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/raceflag"
)

// Load gives each device its own library, from any goroutine, however the
// devices alternate; a runtime shut down and opened again loads afresh,
// and Load (the launch path's first step) makes no allocation.
func TestLoadPerDevice(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	require.NoError(t, gpu.Shutdown())
	cputest.Device(t)
	var devs [2]*gpu.Device
	for ord := range devs {
		var err error
		devs[ord], err = gpu.Get(ord)
		require.NoError(t, err)
	}
	first0, err := faulty.Library.Load(devs[0])
	require.NoError(t, err)
	first1, err := faulty.Library.Load(devs[1])
	require.NoError(t, err)
	require.NotSame(t, first0, first1)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				ord := (g + i) % 2
				ld, err := faulty.Library.Load(devs[ord])
				if assert.NoError(t, err) {
					assert.Same(t, []any{first0, first1}[ord], ld, "device %d", ord)
				}
			}
		})
	}
	wg.Wait()
	if !raceflag.Enabled {
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = faulty.Library.Load(devs[1]) }))
	}

	require.NoError(t, gpu.Shutdown())
	_, err = faulty.Library.Load(devs[1])
	assert.ErrorIs(t, err, gpu.ErrContextIsDestroyed, "a device of a runtime shut down")
	dev := cputest.Device(t)
	again, err := faulty.Library.Load(dev)
	require.NoError(t, err)
	assert.NotSame(t, first0, again, "loaded afresh")
	assert.NotSame(t, first1, again, "loaded afresh")
}

// BenchmarkLoad is the first step of every typed launch: the library as
// loaded on the stream's device.
func BenchmarkLoad(b *testing.B) {
	dev := cputest.Device(b)
	if _, err := faulty.Library.Load(dev); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := faulty.Library.Load(dev); err != nil {
			b.Fatal(err)
		}
	}
}
