package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A //hipgo:constant and a //hipgo:device variable: set by copies, read
// and counted in by the kernel by name, read back by copies, on the cpu
// agent (the Go variables) and on GPUs (__constant__ and __device__).
func TestGlobals(t *testing.T) {
	for _, drv := range []string{"cpu", "cuda", "rocm"} {
		t.Run(drv, func(t *testing.T) {
			dev := gputest.DeviceOf(t, drv)
			ld, err := faulty.Library.Load(dev)
			require.NoError(t, err)
			coef, err := module.GetGlobal[float32](ld.Module, "Coef")
			require.NoError(t, err)
			require.Equal(t, 4, coef.Len())
			hits, err := module.GetGlobal[int32](ld.Module, "Hits")
			require.NoError(t, err)
			require.Equal(t, 2, hits.Len())

			s, err := stream.New(dev)
			require.NoError(t, err)
			defer s.Destroy()
			const n = 1001
			ones := make([]float32, n)
			for i := range ones {
				ones[i] = 1
			}
			x, err := buffer.FromSlice(dev, ones)
			require.NoError(t, err)
			defer x.Free()
			require.NoError(t, stream.CopyToDevice(s, coef, 0, []float32{0.5, 2, 3, 4}))
			require.NoError(t, stream.Fill(s, hits, int32(0)))
			require.NoError(t, faulty.LaunchScaleByCoef(s, gpu.D1(4), gpu.D1(256), 0, x))
			require.NoError(t, s.Synchronize())

			got, err := x.ToSlice()
			require.NoError(t, err)
			want := []float32{0.5, 2, 3, 4}
			for i, v := range got {
				require.InDelta(t, want[i%4], v, 0, "x[%d]", i)
			}
			counts, err := hits.ToSlice()
			require.NoError(t, err)
			assert.Equal(t, []int32{(n + 1) / 2, n / 2}, counts, "even and odd work-items counted in device memory")
			back, err := coef.ToSlice()
			require.NoError(t, err)
			assert.InDeltaSlice(t, want, back, 0)
		})
	}
}
