package kernel_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Lockstep and barrier-free kernels launched from several goroutines on
// their own streams, each stream destroyed while its work may still run,
// interleaved with failing launches: every result that comes back is
// right, and no coroutine is left behind (TestMain's leak check).
func TestLockstepRacesDestroy(t *testing.T) {
	dev, _, m := setup(t)
	reduce, err := m.Function("reduce")
	require.NoError(t, err)
	hist, err := m.Function("histogram")
	require.NoError(t, err)
	const n, grid, block = 4096, 4, 128
	h := make([]float32, n)
	for i := range h {
		h[i] = 1
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			in, err := buffer.FromSlice(dev, h)
			if !assert.NoError(t, err) {
				return
			}
			defer in.Free()
			out, err := buffer.New[float32](dev, grid)
			if !assert.NoError(t, err) {
				return
			}
			defer out.Free()
			small, _ := buffer.New[uint8](dev, 16)
			defer small.Free()
			bins, _ := buffer.New[uint32](dev, 16)
			defer bins.Free()
			for it := 0; it < 20; it++ {
				s, err := stream.New(dev)
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, module.LaunchKernelGGL(reduce, gpu.D1(grid), gpu.D1(block), block*4, s, in, int64(n), out, int64(grid), uint32(block*4)))
				if it%3 == 0 {
					// bins claims 256 entries where small holds 16: the
					// kernel faults; the stream reports it.
					assert.NoError(t, module.LaunchKernelGGL(hist, gpu.D1(2), gpu.D1(64), 0, s, small, int64(16), bins, int64(256)))
				}
				if it%2 == 0 {
					if err := s.Synchronize(); it%3 == 0 {
						assert.ErrorContains(t, err, "is outside", "a view past its buffer fails the launch")
					} else {
						assert.NoError(t, err)
						got, err := out.ToSlice()
						assert.NoError(t, err)
						var sum float32
						for _, v := range got {
							sum += v
						}
						assert.Equal(t, float32(n), sum)
					}
				}
				_ = s.Destroy()
			}
		}(g)
	}
	wg.Wait()
}
