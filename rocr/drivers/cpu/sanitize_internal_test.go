package cpu

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Shadow bits across word boundaries: marked ranges read as written, the
// first unwritten byte is found exactly.
func TestShadowMarksAndFinds(t *testing.T) {
	s := &shadow{bits: make([]uint64, 4)}
	assert.EqualValues(t, 0, s.unwritten(0, 256))
	s.mark(3, 130)
	assert.EqualValues(t, 130, s.unwritten(3, 130))
	assert.EqualValues(t, 2, s.unwritten(2, 130))
	assert.EqualValues(t, 130, s.unwritten(64, 200))
	s.mark(130, 256)
	assert.EqualValues(t, 256, s.unwritten(3, 256))
	assert.EqualValues(t, 0, s.unwritten(0, 1))
	s.mark(0, 0)
	assert.EqualValues(t, 0, s.unwritten(0, 1))
}
