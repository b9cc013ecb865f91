package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestRun(t *testing.T) {
	dev := gputest.Device(t)
	const n = 1 << 18
	r, err := run(dev, n, 7)
	require.NoError(t, err)
	assert.InDelta(t, math.Pi, r.pi, 6*math.Sqrt(math.Pi*(4-math.Pi)/n), "pi")
	assert.InDelta(t, 0, r.mean, 6/math.Sqrt(n), "mean")
	assert.InDelta(t, 1, r.std, 6/math.Sqrt(2*n), "standard deviation")
	again, err := run(dev, n, 7)
	require.NoError(t, err)
	assert.Equal(t, r, again, "the same seed, the same numbers")
}
