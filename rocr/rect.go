package rocr

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"sync"

	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/hsa"
)

var rects struct {
	mu sync.Mutex
	m  map[uint64]*spi.Rect
}

// RegisterRect stores r for one aql.AgentRect packet (aql.RectWork) and
// returns its id.
func RegisterRect(r *spi.Rect) uint64 {
	id := hostref.NewID() // one id space with callbacks
	rects.mu.Lock()
	if rects.m == nil {
		rects.m = map[uint64]*spi.Rect{}
	}
	rects.m[id] = r
	rects.mu.Unlock()
	return id
}

// TakeRect removes and returns the descriptor with id, checked.
func TakeRect(id uint64) (*spi.Rect, error) {
	rects.mu.Lock()
	r, ok := rects.m[id]
	delete(rects.m, id)
	rects.mu.Unlock()
	if !ok {
		return nil, Errorf(hsa.StatusErrorInvalidArgument, "copy 2d", "no 2-d or 3-d copy %d", id)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}
