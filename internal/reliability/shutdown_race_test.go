package reliability_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// TestShutdownRacingLaunches: goroutines launch, fill and synchronize on
// their own streams and the default stream while gpu.Shutdown runs. Every
// call either succeeds or fails with hipErrorContextIsDestroyed; none
// faults (before: SIGSEGV writing a kernarg image into an unmapped queue),
// and the runtime opens again.
func TestShutdownRacingLaunches(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	t.Setenv("HIPGO_CPU_AGENTS", "1")
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	for r := 0; r < rounds; r++ {
		dev, err := gpu.Default()
		require.NoError(t, err)
		_, err = kernels.Load(dev)
		require.NoError(t, err)
		def, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		start := make(chan struct{})
		var wg, running sync.WaitGroup
		errs := make(chan error, 1024)
		for g := 0; g < 6; g++ {
			s, err := stream.New(dev)
			require.NoError(t, err)
			if g%3 == 0 {
				s = def
			}
			b, err := buffer.New[float32](dev, 256)
			require.NoError(t, err)
			wg.Add(1)
			running.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; ; i++ {
					if i == 20 {
						running.Done()
					}
					var err error
					switch i % 4 {
					case 0:
						err = kernels.Empty(s)
					case 1:
						err = kernels.VectorAdd(s, b, b, b, 256)
					case 2:
						err = stream.Fill(s, b, float32(i))
					case 3:
						err = s.Synchronize()
					}
					if err != nil {
						if i < 20 {
							running.Done()
						}
						errs <- err
						return
					}
				}
			}()
		}
		close(start)
		running.Wait() // every goroutine is in its loop
		require.NoError(t, gpu.Shutdown())
		wg.Wait()
		close(errs)
		for err := range errs {
			assert.ErrorIs(t, err, gpu.ErrContextIsDestroyed, "round %d: a call racing Shutdown", r)
		}
	}
}
