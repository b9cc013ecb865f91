package gpu_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

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

// Streams made while Shutdown closes the runtime or Reset resets their
// device either fail or are released by that Shutdown: once the last one
// returns, no queue processor or worker is left running.
func TestStreamNewRacingShutdownAndReset(t *testing.T) {
	setup(t, "HIPGO_CPU_AGENTS", "2")
	before := goleak.IgnoreCurrent()
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				devs, err := gpu.Devices()
				if err != nil {
					continue
				}
				d := devs[(g+i)%len(devs)]
				switch {
				case g == 0 && i%10 == 9:
					assert.NoError(t, gpu.Shutdown())
				case g == 1 && i%5 == 4:
					_ = d.Reset()
				default:
					// Streams left for Shutdown to release, and some
					// destroyed by their maker.
					if s, err := stream.New(d); err == nil && i%2 == 0 {
						_ = s.Destroy()
					}
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, gpu.Shutdown())
	goleak.VerifyNone(t, before)
}
