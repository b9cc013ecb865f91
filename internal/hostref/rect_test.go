package hostref

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/rocr/spi"
)

// A rectangle descriptor is taken back once, by its id;
// a discarded one is gone; concurrent registrations get distinct ids.
func TestRects(t *testing.T) {
	r := &spi.Rect{Width: 4, Height: 2}
	id := RegisterRect(r)
	assert.True(t, RectHeld(id))
	got, ok := TakeRect(id)
	assert.True(t, ok)
	assert.Same(t, r, got)
	assert.False(t, RectHeld(id), "held after it was taken")
	_, ok = TakeRect(id)
	assert.False(t, ok, "taken twice")

	id = RegisterRect(r)
	DiscardRect(id)
	DiscardRect(id) // no-op
	_, ok = TakeRect(id)
	assert.False(t, ok, "taken after it was discarded")

	var wg sync.WaitGroup
	ids := make([]uint64, 64)
	for i := range ids {
		wg.Go(func() { ids[i] = RegisterRect(r) })
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for _, id := range ids {
		assert.False(t, seen[id], "id %d given twice", id)
		seen[id] = true
		_, ok := TakeRect(id)
		assert.True(t, ok)
	}
}
