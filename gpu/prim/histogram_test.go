package prim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// Levels that do not fit the sample type are refused and queue nothing:
// (x-lower)*bins must fit an int64.
func TestHistogramLevelsOverflow(t *testing.T) {
	dev, s := newStream(t)
	hist := upload(t, dev, []uint32{9, 9, 9, 9})
	for _, c := range []struct {
		name         string
		call         func(lower, upper float64) error
		lower, upper float64
	}{
		{"uint8", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []uint8{1}), hist, l, u) }, 0, 257},
		{"uint8", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []uint8{1}), hist, l, u) }, -4, 252},
		{"uint16", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []uint16{1}), hist, l, u) }, 0, 1<<16 + 4},
		{"int32", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []int32{1}), hist, l, u) }, -1<<31 - 4, 0},
		{"int32", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []int32{1}), hist, l, u) }, 0, 1 << 53},
		{"uint32", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []uint32{1}), hist, l, u) }, 0, 1<<32 + 4},
		{"uint32", func(l, u float64) error { return HistogramEven(s, upload(t, dev, []uint32{1}), hist, l, u) }, -1 << 60, 1 << 60},
	} {
		err := c.call(c.lower, c.upper)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, "%s [%v, %v)", c.name, c.lower, c.upper)
		assert.ErrorContains(t, err, "overflow", "%s [%v, %v)", c.name, c.lower, c.upper)
	}
	assert.Equal(t, []uint32{9, 9, 9, 9}, download(t, s, hist), "nothing ran")
	// The widest levels each type has are fine.
	require.NoError(t, HistogramEven(s, upload(t, dev, []uint8{0, 255}), hist, 0, 256))
	assert.Equal(t, []uint32{1, 0, 0, 1}, download(t, s, hist), "uint8 [0, 256)")
	i32 := upload(t, dev, []int32{-1 << 31, 1<<31 - 1})
	require.NoError(t, HistogramEven(s, i32, hist, -1<<31, 1<<31))
	assert.Equal(t, []uint32{1, 0, 0, 1}, download(t, s, hist), "int32 [-2^31, 2^31)")
}
