package hostref

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// rect stands for spi.Rect, which this floor may not import.
type rect struct{ width, height uint64 }

// A rectangle descriptor is taken back once, by its id;
// a discarded one is gone; concurrent registrations get distinct ids.
func TestRects(t *testing.T) {
	r := &rect{width: 4, height: 2}
	id := RegisterRect(r)
	assert.True(t, RectHeld(id))
	got, ok := TakeRect[rect](id)
	assert.True(t, ok)
	assert.Same(t, r, got)
	assert.False(t, RectHeld(id), "held after it was taken")
	_, ok = TakeRect[rect](id)
	assert.False(t, ok, "taken twice")

	id = RegisterRect(r)
	_, ok = TakeRect[int](id)
	assert.False(t, ok, "taken as another type")
	assert.False(t, RectHeld(id), "held after a take of the wrong type")

	id = RegisterRect(r)
	DiscardRect(id)
	DiscardRect(id) // no-op
	_, ok = TakeRect[rect](id)
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
		_, ok := TakeRect[rect](id)
		assert.True(t, ok)
	}
}
