package spi

import (
	"math/bits"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// Rect is one 2-D or 3-D copy or fill: Depth slices (0 counts as 1) of
// Height rows of Width bytes, each end's rows Pitch bytes apart and its
// slices Height rows (DstHeight, SrcHeight) of its pitch apart, as
// CUDA_MEMCPY3D describes a pitched end. It is more than an agent-dispatch
// packet's four words hold: an aql.RectWork packet names one registered
// with hostref.RegisterRect.
type Rect struct {
	// Dst and Src are the addresses of the first byte of each end in pool
	// memory; DstHost and SrcHost, when not nil, are Go memory ends that
	// start at the first byte instead (the descriptor keeps them alive).
	Dst, Src         uint64
	DstHost, SrcHost []byte
	DstPitch         uint64
	SrcPitch         uint64
	Width, Height    uint64
	// Depth is the number of slices; DstHeight and SrcHeight the rows in a
	// slice of each end, needed when Depth > 1.
	Depth                uint64
	DstHeight, SrcHeight uint64
	// Fill sets every byte of the destination rows to Value; the source is
	// unused.
	Fill  bool
	Value byte
}

// slices is the number of slices, at least one.
func (r *Rect) slices() uint64 { return max(r.Depth, 1) }

// span is the number of bytes from the first byte of an end with the
// given pitch and rows per slice to the last byte of its last row.
func (r *Rect) span(pitch, rows uint64) uint64 {
	if r.Width == 0 || r.Height == 0 {
		return 0
	}
	return (r.slices()-1)*rows*pitch + (r.Height-1)*pitch + r.Width
}

// DstExtent is the bytes the destination spans from its first byte.
func (r *Rect) DstExtent() uint64 { return r.span(r.DstPitch, r.DstHeight) }

// SrcExtent is the bytes the source spans from its first byte.
func (r *Rect) SrcExtent() uint64 { return r.span(r.SrcPitch, r.SrcHeight) }

// Check validates the descriptor: each pitch holds a row, each slice its
// rows, the extents do not overflow, and Go memory ends hold their extent.
func (r *Rect) Check() error {
	op := "copy 2d"
	if r.Depth > 1 {
		op = "copy 3d"
	}
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	if r.Height > 1<<40 || r.Width > 1<<48 || r.DstPitch > 1<<48 || r.SrcPitch > 1<<48 ||
		r.Depth > 1<<40 || r.DstHeight > 1<<40 || r.SrcHeight > 1<<40 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%d slices of %d rows of %d bytes (pitches %d and %d, slice heights %d and %d) overflow", r.slices(), r.Height, r.Width, r.DstPitch, r.SrcPitch, r.DstHeight, r.SrcHeight)
	}
	if r.DstPitch < r.Width || (!r.Fill && r.SrcPitch < r.Width) {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "row of %d bytes exceeds a pitch (destination %d, source %d)", r.Width, r.DstPitch, r.SrcPitch)
	}
	if r.Depth > 1 && (r.DstHeight < r.Height || (!r.Fill && r.SrcHeight < r.Height)) {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%d rows exceed a slice height (destination %d, source %d)", r.Height, r.DstHeight, r.SrcHeight)
	}
	if !fits(r.slices(), r.DstHeight, r.DstPitch) || !r.Fill && !fits(r.slices(), r.SrcHeight, r.SrcPitch) {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%d slices of %d and %d rows overflow", r.slices(), r.DstHeight, r.SrcHeight)
	}
	if r.DstHost != nil && uint64(len(r.DstHost)) < r.DstExtent() {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "host destination of %d bytes is shorter than %d", len(r.DstHost), r.DstExtent())
	}
	if !r.Fill && r.SrcHost != nil && uint64(len(r.SrcHost)) < r.SrcExtent() {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "host source of %d bytes is shorter than %d", len(r.SrcHost), r.SrcExtent())
	}
	return nil
}

// fits reports whether slices of rows rows of pitch bytes stay below 2^62
// bytes.
func fits(slices, rows, pitch uint64) bool {
	hi, n := bits.Mul64(slices, rows)
	if hi != 0 {
		return false
	}
	hi, n = bits.Mul64(n, pitch)
	return hi == 0 && n < 1<<62
}

// Rows carries the copy out on the host, row by row: mem maps n bytes of
// pool memory at addr to a slice (checking that the agent may touch them).
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
		if dst, err = mem(r.Dst, r.DstExtent(), "destination"); err != nil {
			return err
		}
	}
	var src []byte
	if !r.Fill {
		if src = r.SrcHost; src == nil {
			var err error
			if src, err = mem(r.Src, r.SrcExtent(), "source"); err != nil {
				return err
			}
		}
	}
	for z := uint64(0); z < r.slices(); z++ {
		d0, s0 := z*r.DstHeight*r.DstPitch, z*r.SrcHeight*r.SrcPitch
		for y := uint64(0); y < r.Height; y++ {
			row := dst[d0+y*r.DstPitch : d0+y*r.DstPitch+r.Width]
			if r.Fill {
				for i := range row {
					row[i] = r.Value
				}
				continue
			}
			copy(row, src[s0+y*r.SrcPitch:s0+y*r.SrcPitch+r.Width])
		}
	}
	return nil
}

// Slice is slice z of the copy as a 2-D copy: Go memory ends start at its
// first byte, pool addresses point at it.
func (r *Rect) Slice(z uint64) *Rect {
	s := *r
	s.Depth, s.DstHeight, s.SrcHeight = 1, 0, 0
	d, o := z*r.DstHeight*r.DstPitch, z*r.SrcHeight*r.SrcPitch
	if s.DstHost != nil {
		s.DstHost = s.DstHost[d:]
	} else {
		s.Dst += d
	}
	if !s.Fill {
		if s.SrcHost != nil {
			s.SrcHost = s.SrcHost[o:]
		} else {
			s.Src += o
		}
	}
	return &s
}
