package gputest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompare(t *testing.T) {
	assert.Empty(t, compare([]int32{1, 2, 3}, []int32{1, 2, 3}, 0))
	assert.Contains(t, compare([]int32{1, 2, 3}, []int32{1, 5, 3}, 0), "[1] = 5")
	assert.Contains(t, compare([]int32{1}, []int32{1, 2}, 0), "2 results")
	one := float32(1)
	next := math.Nextafter32(one, 2)
	assert.NotEmpty(t, compare([]float32{one}, []float32{next}, 0))
	assert.Empty(t, compare([]float32{one}, []float32{next}, 1))
	assert.Empty(t, compare([]float32{float32(math.NaN())}, []float32{float32(math.NaN())}, 0))
	assert.NotEmpty(t, compare([]float32{float32(math.NaN())}, []float32{1}, 1000))
	// Across zero: -0 and +0 are one apart at most.
	assert.Empty(t, compare([]float64{math.Copysign(0, -1)}, []float64{0}, 1))
	assert.Equal(t, int64(2), ulpDiff64(-math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64))
}
