package core

import (
	"math"
	"reflect"
)

// Region is one end of a 2-D or 3-D copy as a program names it, in
// elements of T: pool memory m, or the Go slice host, from element off,
// rows pitch bytes apart and, in 3-D, slices rows rows apart. width, when
// positive, bounds a pitched allocation's rows; col and row are the
// origin's column and row, which At moves. buffer.View and buffer.Volume
// are defined on Region, so gpu/stream reads theirs by converting; the
// fields are unexported so that neither type shows them.
type Region[T any] struct {
	m     *Mem
	host  []T
	off   int // first element; -1 when moved past every address
	pitch int // bytes
	rows  int // rows in a slice; 0 for a 2-D end
	col   int // first column, in elements
	row   int // first row in its slice
	width int // a pitched allocation's row width in elements; 0 when not bounded
	bad   string
}

// MemRegion is m from element off as slices of rows rows pitch bytes
// apart (rows 0: a 2-D end) whose rows are width elements wide (0: not
// bounded). m nil is no memory, which a copy reports.
func MemRegion[T any](m *Mem, off, pitch, rows, width int) Region[T] {
	return Region[T]{m: m, off: off, pitch: pitch, rows: rows, width: width}
}

// HostRegion is the Go slice s as slices of rows rows pitch bytes apart.
func HostRegion[T any](s []T, pitch, rows int) Region[T] {
	return Region[T]{host: s, pitch: pitch, rows: rows}
}

// At moves the origin x elements right, y rows down and z slices back. A
// negative position or a pitch that is not a multiple of T's size marks
// the region bad, which the copy reports.
func (r Region[T]) At(x, y, z int) Region[T] {
	es := elemSize[T]()
	switch {
	case r.bad != "":
	case x < 0 || y < 0 || z < 0:
		r.bad = "a negative position"
	case es == 0 || r.pitch%es != 0:
		r.bad = "a pitch that is not a multiple of the element size"
	case r.pitch > 0 && r.off >= 0:
		r.off = satAdd(satAdd(r.off, satMul(satAdd(satMul(z, r.rows), y), r.pitch/es)), x)
		r.col = satAdd(r.col, x)
		r.row = satAdd(r.row, y)
	}
	return r
}

// Pitch is the distance between rows in bytes.
func (r Region[T]) Pitch() int { return r.pitch }

// Rows is the number of rows in a slice.
func (r Region[T]) Rows() int { return r.rows }

// End is the region in bytes, as the copies take it.
func (r Region[T]) End() RectEnd {
	es := elemSize[T]()
	e := RectEnd{M: r.m, Elem: reflect.TypeFor[T](), Off: satMul(r.off, es), Pitch: r.pitch, Col: satMul(r.col, es), Width: satMul(r.width, es), Rows: r.rows, Row: r.row, Bad: r.bad}
	if r.off < 0 {
		e.Off = -1
	}
	if r.m == nil && r.host != nil {
		e.Host = AsBytes(r.host)
		if e.Host == nil {
			e.Host = []byte{} // an empty slice is an empty end, not a nil one
		}
	}
	return e
}

func elemSize[T any]() int { return int(reflect.TypeFor[T]().Size()) }

// satAdd and satMul are + and * on counts >= 0 that stop at math.MaxInt:
// an origin moved past every memory is then reported as past the end of
// its memory, not as a wrapped address.
func satAdd(a, b int) int {
	if b > math.MaxInt-a {
		return math.MaxInt
	}
	return a + b
}

func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}
