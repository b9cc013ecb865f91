package buffer

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Extent is the size of a 3-D region: Width elements in a row, Height rows
// in a slice, Depth slices (hipExtent, with the width in elements).
type Extent struct{ Width, Height, Depth int }

// Pitched3D is 3-D device memory of Depth slices of Height rows of Width
// elements of T, rows Pitch bytes apart and slices Height rows apart
// (hipMalloc3D). Like a Buffer it belongs to its device and the host
// reaches it only by copying (Copy3D).
type Pitched3D[T any] struct {
	mem[T]
	ext   Extent
	pitch int
}

// NewPitched3D allocates ext.Depth slices of ext.Height rows of ext.Width
// elements of T on dev, each row padded as NewPitched pads them. An extent
// with a size of 0 gives empty memory (Len 0), as hipMalloc3D gives a null
// pointer.
func NewPitched3D[T any](dev *gpu.Device, ext Extent) (*Pitched3D[T], error) {
	const op = "malloc 3d"
	es := elemSize[T]()
	if ext.Width < 0 || ext.Height < 0 || ext.Depth < 0 || es == 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "extent %+v of %d-byte elements: want sizes >= 0", ext, es)
	}
	// As in HIP: a row wider than any pitch is a bad value, too many rows
	// or slices more memory than a device holds.
	if ext.Width > (1<<40)/es {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "extent %+v: rows overflow", ext)
	}
	pitch := rowPitch(ext.Width, es)
	if ext.Height > 1<<40 || ext.Depth > 1<<40 || (ext.Depth > 0 && ext.Height > (1<<62)/pitch/ext.Depth) {
		return nil, gpu.Errorf(gpu.ErrOutOfMemory, op, "extent %+v of %d-byte rows: more memory than a device holds", ext, pitch)
	}
	p := &Pitched3D[T]{ext: ext, pitch: pitch}
	n := pitch / es * ext.Height * ext.Depth
	if ext.Width == 0 {
		n = 0 // hipMalloc3D's null pointer: no rows to hold
	}
	if err := core.InitMem[T](&p.m, dev, n, false); err != nil {
		return nil, err
	}
	return p, nil
}

// Extent is the allocation's size in elements, rows and slices.
func (p *Pitched3D[T]) Extent() Extent {
	if p == nil {
		return Extent{}
	}
	return p.ext
}

// Pitch is the distance between rows in bytes.
func (p *Pitched3D[T]) Pitch() int {
	if p == nil {
		return 0
	}
	return p.pitch
}

// SlicePitch is the distance between slices in bytes.
func (p *Pitched3D[T]) SlicePitch() int {
	if p == nil {
		return 0
	}
	return p.pitch * p.ext.Height
}

// Free waits for pending work on the memory and releases it.
func (p *Pitched3D[T]) Free() error {
	if p == nil {
		return nil // as hipFree(nullptr)
	}
	return p.m.Free()
}

// Volume is the whole allocation as one end of a 3-D copy.
func (p *Pitched3D[T]) Volume() Volume[T] {
	if p == nil {
		return Volume[T]{}
	}
	return Volume[T](core.MemRegion[T](&p.m, 0, p.pitch, p.ext.Height, p.ext.Width))
}

// Volume is one end of a 3-D copy (a hipPitchedPtr and a hipPos): slices
// of Rows rows Pitch bytes apart that start at an element of a Go slice, a
// Buffer, a Host, a Pitched or a Pitched3D. At moves its origin.
type Volume[T any] core.Region[T]

// SliceVolume is a Go slice as slices of rows rows, pitch bytes apart (a
// host end of hipMemcpy3D).
func SliceVolume[T any](s []T, pitch, rows int) Volume[T] {
	return Volume[T](core.HostRegion(s, pitch, rows))
}

// ObjectVolume is o's memory from element off as slices of rows rows,
// pitch bytes apart.
func ObjectVolume[T any](o Object, off, pitch, rows int) Volume[T] {
	m, _ := core.MemOf(o)
	return Volume[T](core.MemRegion[T](m, off, pitch, rows, 0))
}

// At moves the volume's origin x elements right, y rows down and z slices
// back. The pitch must be a multiple of T's size and x, y and z must be
// >= 0; the copy reports a volume that breaks either, or whose origin lies
// past its memory.
func (v Volume[T]) At(x, y, z int) Volume[T] { return Volume[T](core.Region[T](v).At(x, y, z)) }

// Pitch is the distance between rows in bytes.
func (v Volume[T]) Pitch() int { return core.Region[T](v).Pitch() }

// Rows is the number of rows in a slice.
func (v Volume[T]) Rows() int { return core.Region[T](v).Rows() }

// Copy3D copies ext.Depth slices of ext.Height rows of ext.Width elements
// from src to dst and returns when they are there (hipMemcpy3D). Each end
// may be a Go slice, a Host, a Buffer, a Pitched or a Pitched3D; the
// element types must agree. A row longer than an end's pitch, rows past an
// end's slice height, columns past a pitched allocation's width, or a last
// row past an end's memory is an error that names the end and the bound.
func Copy3D[T any](dst, src Volume[T], ext Extent) error {
	d, s := core.Region[T](dst).End(), core.Region[T](src).End()
	return core.CopyBox("memcpy 3d", &d, &s, ext.Width*elemSize[T](), ext.Height, ext.Depth, 0)
}

// Memset3D sets the bytes of ext's elements of dst to c (hipMemset3D); dst
// is device or pinned host memory.
func Memset3D[T any](dst Volume[T], c byte, ext Extent) error {
	d := core.Region[T](dst).End()
	if d.M == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "memset 3d", "the destination must be a Buffer, Host, Pitched or Pitched3D")
	}
	return core.CopyBox("memset 3d", &d, nil, ext.Width*elemSize[T](), ext.Height, ext.Depth, c)
}
