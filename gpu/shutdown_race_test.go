package gpu_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Calls that open the runtime race Shutdown without a panic, and the
// runtime they open works: it is not the one the Shutdown releases.
func TestOpenRacingShutdown(t *testing.T) {
	setup(t, "HIPGO_CPU_AGENTS", "2")
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if g == 0 {
					// A runtime with memory and queues takes a while to
					// close: the others open it meanwhile.
					if devs, err := gpu.Devices(); err == nil {
						for _, d := range devs {
							_, _ = buffer.New[float32](d, 1<<16)
							_, _ = stream.New(d)
						}
					}
					assert.NoError(t, gpu.Shutdown())
					continue
				}
				assert.NotPanics(t, func() {
					devs, err := gpu.Devices()
					if err != nil {
						return
					}
					b, err := buffer.New[float32](devs[len(devs)-1], 16)
					if err == nil {
						_ = b.Free()
					}
					if s, err := stream.New(devs[0]); err == nil {
						_ = s.Destroy()
					}
				})
			}
		}()
	}
	wg.Wait()
	dev, err := gpu.Default()
	require.NoError(t, err)
	b, err := buffer.FromSlice(dev, []float32{1, 2, 3})
	require.NoError(t, err, "a buffer on the runtime opened after the race")
	got, err := b.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3}, got)
	require.NoError(t, b.Free())
}
