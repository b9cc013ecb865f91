package mean_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/hipgo/hipgo/examples/mean"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Two cpu agents, read when the runtime opens: the tests run on both,
// in parallel, and on whatever GPU there is too. goleak checks that
// nothing outlives the tests.
func TestMain(m *testing.M) {
	if os.Getenv("HIPGO_CPU_AGENTS") == "" {
		os.Setenv("HIPGO_CPU_AGENTS", "2")
	}
	goleak.VerifyTestMain(m)
}

func ramp(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(i)
	}
	return x
}

func TestCenterOnTwoDevices(t *testing.T) {
	for _, n := range []int{1, 100, 4096, 100_000} {
		t.Run(fmt.Sprint("n=", n), func(t *testing.T) {
			t.Parallel()
			for _, dev := range gputest.Devices(t, "cpu", 2) {
				s, err := stream.New(dev)
				require.NoError(t, err)
				defer s.Destroy()
				x, err := buffer.FromSlice(dev, ramp(n))
				require.NoError(t, err)
				defer x.Free()

				m, err := mean.Center(s, x, n)
				require.NoError(t, err)
				want := float64(n-1) / 2
				assert.InDelta(t, want, float64(m), 1e-4*want+1e-6)
				got, err := x.ToSlice()
				require.NoError(t, err)
				assert.InDelta(t, -want, float64(got[0]), 1e-3*want+1e-6)
				assert.InDelta(t, want, float64(got[n-1]), 1e-3*want+1e-6)
			}
		})
	}
}

func TestOfRejectsEmpty(t *testing.T) {
	t.Parallel()
	dev := gputest.Device(t)
	s, err := stream.DefaultStream(dev) // the test's own: released with it
	require.NoError(t, err)
	x, err := buffer.New[float32](dev, 1)
	require.NoError(t, err)
	defer x.Free()
	_, err = mean.Of(s, x, 0)
	assert.ErrorContains(t, err, "want at least one element")
}

// BenchmarkOf reports ns/op with the reduction's work in it, the GPU's
// time per mean (gpu-ns/op), and the bandwidth of that time (GB/s).
func BenchmarkOf(b *testing.B) {
	const n = 1 << 20
	dev := gputest.Device(b)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	x, err := buffer.FromSlice(dev, ramp(n))
	require.NoError(b, err)
	defer x.Free()
	gputest.Benchmark(b, s, func() error {
		_, err := mean.Of(s, x, n)
		return err
	}, gputest.Bytes(4*n))
}
