package hostref

import (
	"sync"

	"github.com/hipgo/hipgo/rocr/spi"
)

// rects holds the descriptors of 2-D and 3-D copies (aql.AgentRect), which
// may name Go memory at either end.
var rects struct {
	mu sync.Mutex
	m  map[uint64]*spi.Rect
}

// RegisterRect holds r for one aql.AgentRect packet (aql.RectWork) and
// returns its id, from the id space callbacks and natives share.
func RegisterRect(r *spi.Rect) uint64 {
	id := NewID()
	rects.mu.Lock()
	if rects.m == nil {
		rects.m = map[uint64]*spi.Rect{}
	}
	rects.m[id] = r
	rects.mu.Unlock()
	return id
}

// TakeRect removes and returns the descriptor with id; false if none is
// held (taken already, discarded, or never registered).
func TakeRect(id uint64) (*spi.Rect, bool) {
	rects.mu.Lock()
	r, ok := rects.m[id]
	delete(rects.m, id)
	rects.mu.Unlock()
	return r, ok
}

// DiscardRect drops the descriptor with id, if it is still held: its
// packet will not run, and the Go memory it names may go.
func DiscardRect(id uint64) {
	rects.mu.Lock()
	delete(rects.m, id)
	rects.mu.Unlock()
}

// RectHeld reports whether the descriptor with id is still held.
func RectHeld(id uint64) bool {
	rects.mu.Lock()
	defer rects.mu.Unlock()
	_, ok := rects.m[id]
	return ok
}
