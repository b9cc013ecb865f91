package gputest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompare(t *testing.T) {
	assert.Empty(t, compare([]int32{1, 2, 3}, []int32{1, 2, 3}, ulps(0)))
	assert.Contains(t, compare([]int32{1, 2, 3}, []int32{1, 5, 3}, ulps(0)), "[1] = 5")
	assert.Contains(t, compare([]int32{1}, []int32{1, 2}, ulps(0)), "2 results")
	one := float32(1)
	next := math.Nextafter32(one, 2)
	assert.NotEmpty(t, compare([]float32{one}, []float32{next}, ulps(0)))
	assert.Empty(t, compare([]float32{one}, []float32{next}, ulps(1)))
	assert.Empty(t, compare([]float32{float32(math.NaN())}, []float32{float32(math.NaN())}, ulps(0)))
	assert.NotEmpty(t, compare([]float32{float32(math.NaN())}, []float32{1}, ulps(1000)))
	// Across zero: -0 and +0 are one apart at most.
	assert.Empty(t, compare([]float64{math.Copysign(0, -1)}, []float64{0}, ulps(1)))
	// An absolute bound accepts what the ULP bound alone does not, and
	// NaN still matches nothing else.
	assert.NotEmpty(t, compare([]float32{1e-8}, []float32{2e-8}, ulps(4)))
	assert.Empty(t, compare([]float32{1e-8}, []float32{2e-8}, diffConfig{ulps: 4, abs: 1e-7}))
	assert.NotEmpty(t, compare([]float32{1}, []float32{1.001}, diffConfig{abs: 1e-4}))
	assert.NotEmpty(t, compare([]float32{float32(math.NaN())}, []float32{1}, diffConfig{abs: 1e9}))
	assert.Contains(t, compare([]float64{0}, []float64{1}, diffConfig{ulps: 2, abs: 0.5}), "within 2 ULPs or 0.5")
	assert.Equal(t, int64(2), ulpDiff64(-math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64))
}

func ulps(n int64) diffConfig { return diffConfig{ulps: n} }
