package hostref

import "sync"

// rects holds the descriptors of 2-D and 3-D copies (aql.AgentRect, an
// spi.Rect each), which may name Go memory at either end. The functions
// are generic over the descriptor's type because this floor sits below
// rocr/spi, which defines it.
var rects struct {
	mu sync.Mutex
	m  map[uint64]any
}

// RegisterRect holds r for one aql.AgentRect packet (aql.RectWork) and
// returns its id, from the id space callbacks and natives share.
func RegisterRect[R any](r *R) uint64 {
	id := NewID()
	rects.mu.Lock()
	if rects.m == nil {
		rects.m = map[uint64]any{}
	}
	rects.m[id] = r
	rects.mu.Unlock()
	return id
}

// TakeRect removes and returns the descriptor with id; false if none of
// type R is held (taken already, discarded, or never registered).
func TakeRect[R any](id uint64) (*R, bool) {
	rects.mu.Lock()
	v, ok := rects.m[id]
	delete(rects.m, id)
	rects.mu.Unlock()
	if !ok {
		return nil, false
	}
	r, ok := v.(*R)
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
