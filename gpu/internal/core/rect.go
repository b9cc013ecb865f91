package core

import (
	"context"
	"fmt"
	"github.com/hipgo/hipgo/rocr/spi"
	"reflect"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// RectEnd is one end of a 2-D or 3-D copy or fill: pool memory M from
// byte Off, or Go memory Host from byte Off, with rows Pitch bytes apart
// and, in 3-D, slices Rows rows apart. Width, when positive, is the row
// width of a pitched allocation in bytes and Col the end's first column in
// bytes: a copy must stay within it. Row is the end's first row in its
// slice: a 3-D copy must stay within the slice's Rows.
type RectEnd struct {
	M     *Mem
	Host  []byte
	Elem  reflect.Type // the caller's element type, checked against M's
	Off   int
	Pitch int
	Col   int
	Width int
	Rows  int
	Row   int
	Bad   string // why the end's position is invalid, from At
}

// check validates the end for depth slices of height rows of width bytes.
func (e *RectEnd) check(op, what string, width, height, depth int) error {
	if e.M != nil {
		if err := e.M.Check(op); err != nil {
			return err
		}
		if e.Elem != nil && e.Elem != e.M.elem {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: elements of type %s, %s holds %s", what, e.Elem, e.M, e.M.elem)
		}
	}
	if e.Bad != "" {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: moved by At to %s", what, e.Bad)
	}
	if e.Off < 0 || e.Pitch <= 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: offset %d bytes, pitch %d bytes: want an offset >= 0 and a positive pitch", what, e.Off, e.Pitch)
	}
	if width > e.Pitch {
		// hipErrorInvalidPitchValue, as HIP; errors.Is still matches
		// ErrInvalidValue, which it was before.
		return &gpu.Error{Code: gpu.ErrInvalidPitchValue, Op: op, Err: gpu.ErrInvalidValue,
			Msg: fmt.Sprintf("%s: row of %d bytes exceeds the pitch of %d bytes", what, width, e.Pitch)}
	}
	if e.Width > 0 && (e.Col < 0 || e.Col > e.Width) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: column byte %d is outside the row width of %d bytes", what, e.Col, e.Width)
	}
	if e.Width > 0 && e.Col > e.Width-width {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: columns [%d, %d) bytes cross the row width of %d bytes", what, e.Col, e.Col+width, e.Width)
	}
	size := len(e.Host)
	name := fmt.Sprintf("host memory of %d bytes", size)
	if e.M != nil {
		size, name = e.M.Size(), e.M.String()
	}
	if height > (1<<62)/e.Pitch {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: %d rows of pitch %d overflow", what, height, e.Pitch)
	}
	if e.Off > size {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: origin at byte %d, past the end of %s (%d bytes)", what, e.Off, name, size)
	}
	if depth > 1 && e.Rows <= 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: slice height %d rows: want a positive height for %d slices", what, e.Rows, depth)
	}
	// An end with a slice height (a volume) keeps every copy within it,
	// one slice deep included.
	if e.Rows > 0 && (e.Row < 0 || e.Row > e.Rows) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: row %d is outside the slice height of %d rows", what, e.Row, e.Rows)
	}
	if e.Rows > 0 && e.Row > e.Rows-height {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: rows [%d, %d) cross the slice height of %d rows", what, e.Row, e.Row+height, e.Rows)
	}
	if depth > 1 {
		if e.Rows > (1<<62)/e.Pitch || depth > (1<<62)/(e.Rows*e.Pitch) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: %d slices of %d rows of pitch %d overflow", what, depth, e.Rows, e.Pitch)
		}
		if end := e.Off + (depth-1)*e.Rows*e.Pitch + (height-1)*e.Pitch + width; end > size {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: slice %d row %d ends at byte %d, past the end of %s (%d bytes)", what, depth-1, height-1, end, name, size)
		}
		return nil
	}
	if end := e.Off + (height-1)*e.Pitch + width; end > size {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: row %d ends at byte %d, past the end of %s (%d bytes)", what, height-1, end, name, size)
	}
	return nil
}

// rect checks both ends and builds the descriptor; src is nil for a fill.
func rect(op string, dst, src *RectEnd, width, height, depth int, value byte) (*spi.Rect, error) {
	if width < 0 || height < 0 || depth < 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "width %d bytes, height %d rows, depth %d slices: want >= 0", width, height, depth)
	}
	if dst.M == nil && dst.Host == nil || src != nil && src.M == nil && src.Host == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if width == 0 || height == 0 || depth == 0 {
		return nil, nil
	}
	if err := dst.check(op, "destination", width, height, depth); err != nil {
		return nil, err
	}
	r := &spi.Rect{DstPitch: uint64(dst.Pitch), Width: uint64(width), Height: uint64(height), Fill: src == nil, Value: value}
	if depth > 1 {
		r.Depth, r.DstHeight = uint64(depth), uint64(dst.Rows)
	}
	if dst.M != nil {
		r.Dst = uint64(dst.M.Addr()) + uint64(dst.Off)
	} else {
		r.DstHost = dst.Host[dst.Off:]
	}
	if src == nil {
		return r, nil
	}
	if err := src.check(op, "source", width, height, depth); err != nil {
		return nil, err
	}
	if depth > 1 {
		r.SrcHeight = uint64(src.Rows)
	}
	if dst.M != nil && src.M != nil && dst.M.elem != src.M.elem {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "element types differ: %s and %s", dst.M.elem, src.M.elem)
	}
	r.SrcPitch = uint64(src.Pitch)
	if src.M != nil {
		r.Src = uint64(src.M.Addr()) + uint64(src.Off)
	} else {
		r.SrcHost = src.Host[src.Off:]
	}
	return r, nil
}

// rectDevice picks the device that runs a 2-D copy: the one owning device
// memory (dst's unless only src is device memory), and checks that it may
// touch both ends. nil when both ends are Go memory.
func rectDevice(op string, dst, src *RectEnd) (*gpu.Device, error) {
	var dev *gpu.Device
	switch {
	case dst.M != nil && (!dst.M.host || src == nil || src.M == nil || src.M.host):
		dev = dst.M.Device()
	case src != nil && src.M != nil:
		dev = src.M.Device()
	default:
		return nil, nil
	}
	for _, e := range []*RectEnd{dst, src} {
		if e != nil && e.M != nil {
			if err := e.M.CheckAccess(op, dev); err != nil {
				return nil, err
			}
		}
	}
	return dev, nil
}

// CopyRect copies height rows of width bytes from src to dst and returns
// when they are there (hipMemcpy2D); src nil fills dst with value
// (hipMemset2D).
func CopyRect(op string, dst, src *RectEnd, width, height int, value byte) error {
	return CopyBox(op, dst, src, width, height, 1, value)
}

// CopyBox copies depth slices of height rows of width bytes from src to
// dst and returns when they are there (hipMemcpy3D); src nil fills dst
// with value (hipMemset3D).
func CopyBox(op string, dst, src *RectEnd, width, height, depth int, value byte) error {
	r, err := rect(op, dst, src, width, height, depth, value)
	if err != nil || r == nil {
		return err
	}
	dev, err := rectDevice(op, dst, src)
	if err != nil {
		return err
	}
	if dev == nil { // Go memory at both ends
		return errs.Wrap(op, r.Rows(nil))
	}
	e, err := engineOf(dev)
	if err != nil {
		return errs.Wrap(op, err)
	}
	id := hostref.RegisterRect(r)
	err = e.run(context.Background(), op, aql.RectWork{ID: id}.Call(), MemUse{dst.M, Write}, MemUse{srcMem(src), Read})
	hostref.DiscardRect(id) // the packet did not run if it is still there
	return err
}

// Rect queues a 2-D copy (src nil: a fill) on the stream
// (hipMemcpy2DAsync, hipMemset2DAsync). Go memory ends must stay unchanged
// (a source) or untouched (a destination) until the copy completes; the
// descriptor keeps them alive.
func (s *Stream) Rect(op string, dst, src *RectEnd, width, height int, value byte) error {
	return s.Box(op, dst, src, width, height, 1, value)
}

// Box queues a 3-D copy (src nil: a fill) of depth slices on the stream
// (hipMemcpy3DAsync, hipMemset3DAsync), as Rect does a 2-D one.
func (s *Stream) Box(op string, dst, src *RectEnd, width, height, depth int, value byte) error {
	r, err := rect(op, dst, src, width, height, depth, value)
	if err != nil || r == nil {
		return err
	}
	dev := s.Device()
	for _, e := range []*RectEnd{dst, src} {
		if e != nil && e.M != nil {
			if err := e.M.CheckAccess(op, dev); err != nil {
				return err
			}
		}
	}
	id := hostref.RegisterRect(r)
	var uses [2]MemUse
	n := 0
	if dst.M != nil {
		uses[n] = MemUse{M: dst.M, Acc: Write}
		n++
	}
	if m := srcMem(src); m != nil {
		uses[n] = MemUse{M: m, Acc: Read}
		n++
	}
	if err := s.Agent(op, aql.RectWork{ID: id}.Call(), 0, uses[:n]...); err != nil {
		hostref.DiscardRect(id)
		return err
	}
	return nil
}

func srcMem(src *RectEnd) *Mem {
	if src == nil {
		return nil
	}
	return src.M
}
