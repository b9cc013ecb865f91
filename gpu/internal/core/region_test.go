package core

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRegionAtMovesTheOrigin(t *testing.T) {
	var m Mem
	r := MemRegion[int32](&m, 2, 64, 4, 10).At(3, 1, 2)
	e := r.End()
	assert.Same(t, &m, e.M)
	// element 2 + (2 slices × 4 rows + 1 row) × 16 elements + 3
	assert.Equal(t, (2+9*16+3)*4, e.Off)
	assert.Equal(t, 12, e.Col)
	assert.Equal(t, 1, e.Row)
	assert.Equal(t, 40, e.Width)
	assert.Equal(t, 4, e.Rows)
	assert.Empty(t, e.Bad)
}

func TestRegionAtMarksBadPositions(t *testing.T) {
	assert.Equal(t, "a negative position", HostRegion(make([]int32, 8), 16, 0).At(-1, 0, 0).End().Bad)
	assert.Equal(t, "a pitch that is not a multiple of the element size", HostRegion(make([]int32, 8), 6, 0).At(1, 0, 0).End().Bad)
	// The first fault is kept.
	assert.Equal(t, "a negative position", HostRegion(make([]int32, 8), 16, 0).At(0, -1, 0).At(1, 1, 0).End().Bad)
}

func TestRegionAtSaturates(t *testing.T) {
	e := HostRegion(make([]byte, 1), 1<<40, 0).At(0, math.MaxInt/2, 0).End()
	assert.Equal(t, math.MaxInt, e.Off, "an origin past every address stays past the end")
}

func TestRegionEndOfEmptySlice(t *testing.T) {
	e := HostRegion([]float32{}, 16, 0).End()
	assert.NotNil(t, e.Host, "an empty slice is an empty end")
	assert.Nil(t, e.M)
	assert.Nil(t, HostRegion[float32](nil, 16, 0).End().Host, "a nil slice is no memory")
}
