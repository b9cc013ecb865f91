package buffer

import (
	"reflect"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// PitchAlign is the alignment of a Pitched allocation's rows, in bytes:
// rows that start on it keep every row's accesses coalesced.
const PitchAlign = 256

// Pitched is 2-D device memory of Height rows of Width elements of T whose
// rows start Pitch bytes apart (hipMallocPitch). Like a Buffer it belongs
// to its device and the host reaches it only by copying (Copy2D).
type Pitched[T any] struct {
	mem[T]
	width, height int
	pitch         int
}

// NewPitched allocates height rows of width elements of T on dev, each row
// padded to a multiple of PitchAlign bytes (and of T's size). A width or
// height of 0 gives empty memory (Len 0), as hipMallocPitch gives a null
// pointer.
func NewPitched[T any](dev *gpu.Device, width, height int) (*Pitched[T], error) {
	const op = "malloc pitch"
	es := int(reflect.TypeFor[T]().Size())
	if width < 0 || height < 0 || es == 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "width %d, height %d of %d-byte elements", width, height, es)
	}
	// As in HIP: a row wider than any pitch is a bad value, too many rows
	// more memory than a device holds.
	if width > (1<<40)/es {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "rows of %d elements overflow", width)
	}
	pitch := rowPitch(width, es)
	if height > (1<<62)/pitch {
		return nil, gpu.Errorf(gpu.ErrOutOfMemory, op, "%d rows of %d bytes: more memory than a device holds", height, pitch)
	}
	p := &Pitched[T]{width: width, height: height, pitch: pitch}
	n := pitch / es * height
	if width == 0 {
		n = 0 // hipMallocPitch's null pointer: no rows to hold
	}
	if err := core.InitMem[T](&p.m, dev, n, false); err != nil {
		return nil, err
	}
	return p, nil
}

// Width is the number of elements in a row.
func (p *Pitched[T]) Width() int {
	if p == nil {
		return 0
	}
	return p.width
}

// Height is the number of rows.
func (p *Pitched[T]) Height() int {
	if p == nil {
		return 0
	}
	return p.height
}

// Pitch is the distance between rows in bytes.
func (p *Pitched[T]) Pitch() int {
	if p == nil {
		return 0
	}
	return p.pitch
}

// Free waits for pending work on the memory and releases it.
func (p *Pitched[T]) Free() error {
	if p == nil {
		return nil // as hipFree(nullptr)
	}
	return p.m.Free()
}

// View is the whole allocation as one end of a 2-D copy.
func (p *Pitched[T]) View() View[T] {
	if p == nil {
		return View[T]{}
	}
	return View[T](core.MemRegion[T](&p.m, 0, p.pitch, 0, p.width))
}

// View is one end of a 2-D copy: rows Pitch bytes apart that start at an
// element of a Go slice, a Buffer, a Host or a Pitched. At moves its
// origin to a sub-matrix.
type View[T any] core.Region[T]

// SliceView is a Go slice as rows pitch bytes apart (a host end of
// hipMemcpy2D).
func SliceView[T any](s []T, pitch int) View[T] { return View[T](core.HostRegion(s, pitch, 0)) }

// ObjectView is o's memory from element off as rows pitch bytes apart.
func ObjectView[T any](o Object, off, pitch int) View[T] {
	m, _ := core.MemOf(o)
	return View[T](core.MemRegion[T](m, off, pitch, 0, 0))
}

// At moves the view's origin x elements right and y rows down. The pitch
// must be a multiple of T's size and x and y must be >= 0; the copy
// reports a view that breaks either, or whose origin lies past its memory.
func (v View[T]) At(x, y int) View[T] { return View[T](core.Region[T](v).At(x, y, 0)) }

// Pitch is the distance between rows in bytes.
func (v View[T]) Pitch() int { return core.Region[T](v).Pitch() }

// Copy2D copies height rows of width elements from src to dst and returns
// when they are there (hipMemcpy2D). Each end may be a Go slice, a Host, a
// Buffer or a Pitched; the element types must agree. A row longer than an
// end's pitch, a last row past an end's memory, or columns past a
// Pitched's width is an error that names the end and the bound.
func Copy2D[T any](dst, src View[T], width, height int) error {
	d, s := core.Region[T](dst).End(), core.Region[T](src).End()
	return core.CopyRect("memcpy 2d", &d, &s, width*elemSize[T](), height, 0)
}

// Memset2D sets the bytes of height rows of width elements of dst to c
// (hipMemset2D); dst is device or pinned host memory.
func Memset2D[T any](dst View[T], c byte, width, height int) error {
	d := core.Region[T](dst).End()
	if d.M == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset 2d", "the destination must be a Buffer, Host or Pitched")
	}
	return core.CopyRect("memset 2d", &d, nil, width*elemSize[T](), height, c)
}

func elemSize[T any]() int { return int(reflect.TypeFor[T]().Size()) }

// rowPitch is the pitch of rows of width elements of es bytes: a multiple
// of PitchAlign and of es, at least one alignment unit.
func rowPitch(width, es int) int {
	align := PitchAlign
	for align%es != 0 {
		align += PitchAlign
	}
	return max(align, (width*es+align-1)/align*align)
}
