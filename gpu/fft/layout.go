package fft

import (
	"math"

	"github.com/hipgo/hipgo/gpu"
)

// Layout is cuFFT's advanced data layout (cufftPlanMany's inembed,
// istride, idist, onembed, ostride, odist). Element x = (x0[, x1[, x2]])
// of transform b of a side lies at
//
//	b·Dist + ((x0·Embed[1] + x1)·Embed[2] + x2)·Stride
//
// for three dimensions (b·Dist + (x0·Embed[1] + x1)·Stride for two,
// b·Dist + x0·Stride for one). Embed[0] is not used, as with cuFFT; each
// other Embed[a] is at least the side's extent on axis a. A side's extents
// are the plan's dims, except the complex side of a real transform, whose
// last axis has dims[last]/2+1 values.
//
// A nil *Layout is the basic layout: contiguous transforms back to back.
// InEmbed and OutEmbed are both set (the advanced layout) or both nil;
// one without the other is refused, since cuFFT would then ignore both.
type Layout struct {
	InEmbed   []int
	InStride  int
	InDist    int
	OutEmbed  []int
	OutStride int
	OutDist   int
}

// side is how one side of a plan (its input or its output) addresses its
// elements: transform b's element x lies at b·dist + Σ x[a]·stride[a].
type side struct {
	rank   int
	shape  [MaxDims]int
	stride [MaxDims]int
	dist   int
	span   int // the elements an execution may touch: the last one + 1
}

// basicSide is the contiguous layout of shape, transforms back to back
// (rowLen replaces the last axis's extent in the strides: the padded real
// rows of an in-place real transform).
func basicSide(shape []int, rowLen, batch int) side {
	s := side{rank: len(shape)}
	copy(s.shape[:], shape)
	st := 1
	for a := len(shape) - 1; a >= 0; a-- {
		s.stride[a] = st
		if a == len(shape)-1 {
			st *= rowLen
		} else {
			st *= shape[a]
		}
	}
	s.dist = st
	s.finish(batch)
	return s
}

// finish computes span; the values are checked to fit before.
func (s *side) finish(batch int) {
	last := (batch - 1) * s.dist
	for a := range s.rank {
		last += (s.shape[a] - 1) * s.stride[a]
	}
	s.span = last + 1
}

// advancedSide checks one side of a Layout against its shape and makes its
// addressing.
func advancedSide(op, name string, shape, embed []int, stride, dist, batch int) (side, error) {
	if len(embed) != len(shape) {
		return side{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%sEmbed has %d values, want one per dimension (%d)", name, len(embed), len(shape))
	}
	if stride < 1 || stride > math.MaxInt32 || dist < 1 || dist > math.MaxInt32 {
		return side{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%sStride %d, %sDist %d: want 1 to 2^31-1", name, stride, name, dist)
	}
	s := side{rank: len(shape), dist: dist}
	copy(s.shape[:], shape)
	st := stride
	for a := len(shape) - 1; a >= 0; a-- {
		s.stride[a] = st
		if a == 0 {
			break
		}
		if embed[a] < shape[a] || embed[a] > math.MaxInt32 {
			return side{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%sEmbed[%d] = %d, want at least the extent %d (and below 2^31)", name, a, embed[a], shape[a])
		}
		if st > math.MaxInt64/4/embed[a] {
			return side{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%s layout overflows", name)
		}
		st *= embed[a]
	}
	// span fits an int when each term does, with room for the sum.
	if batch > 1 && dist > math.MaxInt64/4/(batch-1) {
		return side{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%s layout overflows", name)
	}
	s.finish(batch)
	return s, nil
}

// layout makes the plan's sides from l (nil: the basic layout) and, for
// a real transform of the basic layout, the padded real side that an
// in-place execution uses (cuFFT's rule: each real row is padded to
// 2·(n/2+1) values, the bytes of its complex row).
func (p *Plan) layout(op string, l *Layout) error {
	cshape := p.complexShape()
	inShape, outShape := p.dims, p.dims
	if p.kind.realIn() {
		outShape = cshape
	}
	if p.kind.realOut() {
		inShape = cshape
	}
	if l == nil {
		p.in = basicSide(inShape, inShape[len(inShape)-1], p.batch)
		p.out = basicSide(outShape, outShape[len(outShape)-1], p.batch)
		if p.kind.realIn() || p.kind.realOut() {
			p.pad = basicSide(p.dims, 2*cshape[len(cshape)-1], p.batch)
		}
		return nil
	}
	if (l.InEmbed == nil) != (l.OutEmbed == nil) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "InEmbed and OutEmbed: both or neither (cuFFT ignores the advanced layout unless both are given)")
	}
	if l.InEmbed == nil {
		return p.layout(op, nil)
	}
	var err error
	if p.in, err = advancedSide(op, "In", inShape, l.InEmbed, l.InStride, l.InDist, p.batch); err != nil {
		return err
	}
	if p.out, err = advancedSide(op, "Out", outShape, l.OutEmbed, l.OutStride, l.OutDist, p.batch); err != nil {
		return err
	}
	p.advanced = &Layout{
		InEmbed: append([]int(nil), l.InEmbed...), InStride: l.InStride, InDist: l.InDist,
		OutEmbed: append([]int(nil), l.OutEmbed...), OutStride: l.OutStride, OutDist: l.OutDist,
	}
	return nil
}

// Layout is the plan's advanced layout (a copy), or nil for the basic
// layout.
func (p *Plan) Layout() *Layout {
	if p.advanced == nil {
		return nil
	}
	l := *p.advanced
	l.InEmbed = append([]int(nil), l.InEmbed...)
	l.OutEmbed = append([]int(nil), l.OutEmbed...)
	return &l
}

// InLen and OutLen are the elements of the input and output an execution
// may touch (of the input's and output's element type): the smallest
// buffers it accepts. An in-place real transform of the basic layout needs
// InLen (R2C) or OutLen (C2R) complex values instead: its real rows are
// padded to whole complex rows.
func (p *Plan) InLen() int { return p.in.span }

// OutLen: see InLen.
func (p *Plan) OutLen() int { return p.out.span }
