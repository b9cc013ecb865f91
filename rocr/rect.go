package rocr

import (
	"sync"

	"github.com/hipgo/hipgo/internal/hostref"
)

// AgentRect: Arg[0] an id from RegisterRect. A 2-D copy or fill
// (hipMemcpy2D, hipMemset2D) needs more than the packet's four arguments,
// so the packet names a descriptor that the executor takes once.
const AgentRect uint16 = 0x8005

// Rect is one 2-D copy or fill: Height rows of Width bytes, each end's rows
// Pitch bytes apart.
type Rect struct {
	// Dst and Src are the addresses of the first byte of each end in pool
	// memory; DstHost and SrcHost, when not nil, are Go memory ends that
	// start at the first byte instead (the descriptor keeps them alive).
	Dst, Src         uint64
	DstHost, SrcHost []byte
	DstPitch         uint64
	SrcPitch         uint64
	Width, Height    uint64
	// Fill sets every byte of the destination rows to Value; the source is
	// unused.
	Fill  bool
	Value byte
}

// Extent is the number of bytes from the first byte of an end with the
// given pitch to the last byte of its last row.
func (r *Rect) Extent(pitch uint64) uint64 {
	if r.Width == 0 || r.Height == 0 {
		return 0
	}
	return (r.Height-1)*pitch + r.Width
}

// Check validates the descriptor: each pitch holds a row, the extents do
// not overflow, and Go memory ends hold their extent.
func (r *Rect) Check() error {
	const op = "copy 2d"
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	if r.Height > 1<<40 || r.Width > 1<<48 || r.DstPitch > 1<<48 || r.SrcPitch > 1<<48 {
		return Errorf(StatusErrorInvalidArgument, op, "%d rows of %d bytes (pitches %d and %d) overflow", r.Height, r.Width, r.DstPitch, r.SrcPitch)
	}
	if r.DstPitch < r.Width || (!r.Fill && r.SrcPitch < r.Width) {
		return Errorf(StatusErrorInvalidArgument, op, "row of %d bytes exceeds a pitch (destination %d, source %d)", r.Width, r.DstPitch, r.SrcPitch)
	}
	if r.DstHost != nil && uint64(len(r.DstHost)) < r.Extent(r.DstPitch) {
		return Errorf(StatusErrorInvalidArgument, op, "host destination of %d bytes is shorter than %d", len(r.DstHost), r.Extent(r.DstPitch))
	}
	if !r.Fill && r.SrcHost != nil && uint64(len(r.SrcHost)) < r.Extent(r.SrcPitch) {
		return Errorf(StatusErrorInvalidArgument, op, "host source of %d bytes is shorter than %d", len(r.SrcHost), r.Extent(r.SrcPitch))
	}
	return nil
}

// Rows carries the rectangle out on the host, row by row: mem maps n bytes
// of pool memory at addr to a slice (checking that the agent may touch
// them).
func (r *Rect) Rows(mem func(addr, n uint64, what string) ([]byte, error)) error {
	if err := r.Check(); err != nil {
		return err
	}
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	dst := r.DstHost
	if dst == nil {
		var err error
		if dst, err = mem(r.Dst, r.Extent(r.DstPitch), "destination"); err != nil {
			return err
		}
	}
	if r.Fill {
		for y := uint64(0); y < r.Height; y++ {
			row := dst[y*r.DstPitch : y*r.DstPitch+r.Width]
			for i := range row {
				row[i] = r.Value
			}
		}
		return nil
	}
	src := r.SrcHost
	if src == nil {
		var err error
		if src, err = mem(r.Src, r.Extent(r.SrcPitch), "source"); err != nil {
			return err
		}
	}
	for y := uint64(0); y < r.Height; y++ {
		copy(dst[y*r.DstPitch:y*r.DstPitch+r.Width], src[y*r.SrcPitch:y*r.SrcPitch+r.Width])
	}
	return nil
}

var rects struct {
	mu sync.Mutex
	m  map[uint64]*Rect
}

// RegisterRect stores r for one AgentRect packet and returns its id.
func RegisterRect(r *Rect) uint64 {
	id := hostref.NewID() // one id space with callbacks
	rects.mu.Lock()
	if rects.m == nil {
		rects.m = map[uint64]*Rect{}
	}
	rects.m[id] = r
	rects.mu.Unlock()
	return id
}

// TakeRect removes and returns the descriptor with id, checked.
func TakeRect(id uint64) (*Rect, error) {
	rects.mu.Lock()
	r, ok := rects.m[id]
	delete(rects.m, id)
	rects.mu.Unlock()
	if !ok {
		return nil, Errorf(StatusErrorInvalidArgument, "copy 2d", "no 2-d copy %d", id)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}
