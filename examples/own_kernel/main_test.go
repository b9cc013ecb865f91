package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// The kernel agrees with the host on every device the machine has (the
// cpu agent in CI; an H200 runs the PTX, an AMD GPU the bundle).
func TestPoly3(t *testing.T) {
	dev := gputest.Device(t)
	for _, n := range []int{1, 255, 256, 1000, 1 << 20} {
		out, worst, err := run(dev, n)
		require.NoError(t, err, "n=%d", n)
		assert.Len(t, out, n)
		assert.InDelta(t, 0, worst, 1e-5, "n=%d", n)
		assert.InDelta(t, -0.5, out[0], 1e-6, "y(-1), n=%d", n) // 2(-1)^3 - 1 - 0.5 + 3
	}
}

// The same kernel gives the same bits on every GPU as on the cpu agent,
// within the FMA contraction a GPU compiler may apply: a few ULPs, or
// 1e-6 where Horner's sums cancel.
func TestPoly3Differential(t *testing.T) {
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		out, _, err := run(dev, 4097)
		return out, err
	}, gputest.ULPs(4), gputest.Abs(1e-6))
}

// A launch that does not fit the kernel is refused before it is queued.
func TestPoly3Refused(t *testing.T) {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	x, err := buffer.New[float32](dev, 16)
	require.NoError(t, err)
	defer x.Free()
	assert.Error(t, Poly3(s, nil, x, 1, 1, 1, 1))
	assert.Error(t, LaunchPoly3(s, gpu.D1(1), gpu.D1(1<<20), 0, x, x, 1, 1, 1, 1), "a block larger than any device allows")
}
