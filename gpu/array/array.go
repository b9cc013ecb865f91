package array

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/prim"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Number is an element type of arithmetic, reductions and sorts:
// gpu/prim's element types.
type Number = prim.Number

// Element is an element type of an Array: a Number, or uint8, the type
// of the masks comparisons make (CuPy's bool arrays: 0 is false, any
// other value true).
type Element interface {
	uint8 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// Array is an n-dimensional C-contiguous array of T on a device, and the
// stream its operations are queued on.
type Array[T Element] struct {
	s     *stream.Stream
	buf   *buffer.Buffer[T] // the memory an owner holds; nil for a view
	data  buffer.Array[T]   // the elements: buf, or a view of base's
	shape []int
	size  int
	base  *Array[T] // a view's owner; nil for an owner
	// freed: Free ran (atomic: an operation racing a Free fails
	// clearly, or runs before it).
	freed atomic.Bool
}

// elems is what a buffer and a view both do: host copies.
type elems[T any] interface {
	buffer.Array[T]
	CopyTo(dst []T) error
	CopyToAt(off int, dst []T) error
	Sub(off, n int) *buffer.Sub[T]
}

// checkShape checks dims and returns their product.
func checkShape(op string, shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, &ShapeError{Op: op, Shapes: [][]int{shape}, Reason: fmt.Sprintf("negative dimension %d", d)}
		}
		if d > 0 && n > math.MaxInt32*1024/d {
			return 0, &ShapeError{Op: op, Shapes: [][]int{shape}, Reason: "too many elements"}
		}
		n *= d
	}
	return n, nil
}

func checkStream(op string, s *stream.Stream) error {
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	return nil
}

// alloc is a new array of shape on s, from s's pool in s's order.
func alloc[T Element](op string, s *stream.Stream, shape []int) (*Array[T], error) {
	if err := checkStream(op, s); err != nil {
		return nil, err
	}
	n, err := checkShape(op, shape)
	if err != nil {
		return nil, err
	}
	b, err := buffer.NewAsync[T](s, n)
	if err != nil {
		return nil, err
	}
	return &Array[T]{s: s, buf: b, data: b, shape: append([]int(nil), shape...), size: n}, nil
}

// Empty is a new array of shape on s whose elements are not set
// (cupy.empty). No dimensions is a 0-d array of one element.
func Empty[T Element](s *stream.Stream, shape ...int) (*Array[T], error) {
	return alloc[T]("array empty", s, shape)
}

// Zeros is a new array of shape on s, every element 0 (cupy.zeros).
func Zeros[T Element](s *stream.Stream, shape ...int) (*Array[T], error) {
	return Full[T](s, 0, shape...)
}

// Full is a new array of shape on s, every element v (cupy.full).
func Full[T Element](s *stream.Stream, v T, shape ...int) (*Array[T], error) {
	a, err := alloc[T]("array full", s, shape)
	if err != nil {
		return nil, err
	}
	if a.size > 0 {
		if err := stream.Fill(s, a.buf, v); err != nil {
			return nil, errors.Join(err, a.Free())
		}
	}
	return a, nil
}

// FromSlice is a new array on s holding a copy of data, of shape (or
// of len(data) elements in one dimension when shape is empty). The copy
// is made before FromSlice returns: data may be reused at once.
func FromSlice[T Element](s *stream.Stream, data []T, shape ...int) (*Array[T], error) {
	const op = "array from slice"
	if err := checkStream(op, s); err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		shape = []int{len(data)}
	}
	n, err := checkShape(op, shape)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, &ShapeError{Op: op, Shapes: [][]int{shape}, Reason: fmt.Sprintf("%d elements given for %d", len(data), n)}
	}
	b, err := buffer.New[T](s.Device(), n)
	if err != nil {
		return nil, err
	}
	if n > 0 {
		if err := b.CopyFrom(data); err != nil {
			return nil, errors.Join(err, b.Free())
		}
	}
	return &Array[T]{s: s, buf: b, data: b, shape: append([]int(nil), shape...), size: n}, nil
}

// Arange is a new one-dimensional array on s of 0, 1, ..., n-1
// (cupy.arange(n)); Scale and AddScalar make other steps and starts.
// The values are made on the host and copied before Arange returns.
func Arange[T Element](s *stream.Stream, n int) (*Array[T], error) {
	const op = "array arange"
	if n < 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "n=%d: want at least 0", n)
	}
	if err := checkStream(op, s); err != nil {
		return nil, err
	}
	h := make([]T, n)
	for i := range h {
		h[i] = T(i)
	}
	return FromSlice(s, h)
}

// FromBuffer is an array of shape over the first elements of b (a
// buffer or a view), queued on s: a view, sharing b's memory; b stays
// the caller's to free.
func FromBuffer[T Element](s *stream.Stream, b buffer.Array[T], shape ...int) (*Array[T], error) {
	const op = "array from buffer"
	if err := checkStream(op, s); err != nil {
		return nil, err
	}
	e, ok := b.(elems[T])
	if b == nil || !ok {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer or not a *buffer.Buffer or *buffer.Sub")
	}
	if len(shape) == 0 {
		shape = []int{b.Len()}
	}
	n, err := checkShape(op, shape)
	if err != nil {
		return nil, err
	}
	if n > b.Len() {
		return nil, &ShapeError{Op: op, Shapes: [][]int{shape}, Reason: fmt.Sprintf("%d elements, the buffer has %d", n, b.Len())}
	}
	view := &Array[T]{s: s, data: e.Sub(0, n), shape: append([]int(nil), shape...), size: n}
	view.base = view // owns nothing, and nothing of this package frees it
	return view, nil
}

// root is the array that owns a's memory.
func (a *Array[T]) root() *Array[T] {
	if a.base != nil {
		return a.base
	}
	return a
}

// check is every operation's check of an operand.
func (a *Array[T]) check(op string) error {
	if a == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil array")
	}
	if a.s == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "array not made by this package")
	}
	if a.root().freed.Load() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "freed array")
	}
	return nil
}

// Free gives an owner's memory back to its stream's pool, in the
// stream's order (after the work queued on it); its views fail after.
// Free of a view does nothing. A second Free is an error.
func (a *Array[T]) Free() error {
	if err := a.check("array free"); err != nil {
		return err
	}
	if a.base != nil {
		return nil
	}
	if a.freed.Swap(true) {
		return gpu.Errorf(gpu.ErrInvalidValue, "array free", "freed array")
	}
	return a.buf.FreeAsync(a.s)
}

// Shape is the array's dimensions (a copy); empty for a 0-d array.
func (a *Array[T]) Shape() []int {
	if a == nil {
		return nil
	}
	return append([]int{}, a.shape...)
}

// Ndim is the number of dimensions.
func (a *Array[T]) Ndim() int {
	if a == nil {
		return 0
	}
	return len(a.shape)
}

// Size is the number of elements.
func (a *Array[T]) Size() int {
	if a == nil {
		return 0
	}
	return a.size
}

// Stream is the stream the array's operations are queued on.
func (a *Array[T]) Stream() *stream.Stream {
	if a == nil {
		return nil
	}
	return a.s
}

// Buffer is the array's elements as a buffer or a view, in C order, for
// kernels and gpu/prim; it shares the array's memory.
func (a *Array[T]) Buffer() buffer.Array[T] {
	if a == nil {
		return nil
	}
	return a.data
}

func (a *Array[T]) String() string {
	if a == nil {
		return "array(nil)"
	}
	var z T
	return fmt.Sprintf("array.Array[%T]%s", z, shapeString(a.shape))
}

// ToSlice copies the elements, in C order, into a new slice; it waits
// for the work queued that writes the array.
func (a *Array[T]) ToSlice() ([]T, error) {
	const op = "array to slice"
	if err := a.check(op); err != nil {
		return nil, err
	}
	out := make([]T, a.size)
	if err := a.copyTo(op, out); err != nil {
		return nil, err
	}
	return out, nil
}

// CopyTo copies the elements, in C order, into dst, which must hold
// Size() elements; it waits for the work queued that writes the array.
func (a *Array[T]) CopyTo(dst []T) error {
	const op = "array copy to host"
	if err := a.check(op); err != nil {
		return err
	}
	if len(dst) != a.size {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%d elements into a slice of %d", a.size, len(dst))
	}
	return a.copyTo(op, dst)
}

func (a *Array[T]) copyTo(op string, dst []T) error {
	if len(dst) == 0 {
		return nil
	}
	e, ok := a.data.(elems[T])
	if !ok {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "array without a buffer")
	}
	return e.CopyTo(dst)
}

// At is the element at index idx (one index per dimension, none for a
// 0-d array), copied to the host; it waits for the work queued that
// writes the array.
func (a *Array[T]) At(idx ...int) (T, error) {
	const op = "array at"
	var v [1]T
	if err := a.check(op); err != nil {
		return v[0], err
	}
	if len(idx) != len(a.shape) {
		return v[0], gpu.Errorf(gpu.ErrInvalidValue, op, "%d indices for %d dimensions", len(idx), len(a.shape))
	}
	flat := 0
	for i, x := range idx {
		if x < 0 || x >= a.shape[i] {
			return v[0], gpu.Errorf(gpu.ErrInvalidValue, op, "index %d out of [0, %d) in dimension %d", x, a.shape[i], i)
		}
		flat = flat*a.shape[i] + x
	}
	e, ok := a.data.(elems[T])
	if !ok {
		return v[0], gpu.Errorf(gpu.ErrInvalidValue, op, "array without a buffer")
	}
	err := e.CopyToAt(flat, v[:])
	return v[0], err
}

// Item is the value of an array of one element (a reduction's result).
func (a *Array[T]) Item() (T, error) {
	const op = "array item"
	var z T
	if err := a.check(op); err != nil {
		return z, err
	}
	if a.size != 1 {
		return z, &ShapeError{Op: op, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("%d elements, want 1", a.size)}
	}
	return a.At(make([]int, len(a.shape))...)
}

// view is an array of shape over elements [off, off+n) of a, sharing
// its memory.
func (a *Array[T]) view(off, n int, shape []int) *Array[T] {
	e := a.data.(elems[T]) // every array's data is a buffer or a view
	return &Array[T]{s: a.s, data: e.Sub(off, n), shape: shape, size: n, base: a.root()}
}

// Reshape is a view of a's elements with another shape of as many
// elements (cupy.reshape); one dimension may be -1, inferred from the
// others. It shares a's memory: writes through one are seen through
// the other.
func (a *Array[T]) Reshape(shape ...int) (*Array[T], error) {
	const op = "array reshape"
	if err := a.check(op); err != nil {
		return nil, err
	}
	shape = append([]int(nil), shape...)
	infer := -1
	known := 1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, shape}, Reason: fmt.Sprintf("dimension %d", d)}
		default:
			known *= d
		}
	}
	if infer >= 0 {
		if known == 0 || a.size%known != 0 {
			return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, shape}, Reason: "cannot infer the -1 dimension"}
		}
		shape[infer] = a.size / known
	}
	if n, err := checkShape(op, shape); err != nil || n != a.size {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, shape}, Reason: "a reshape keeps the number of elements"}
	}
	return a.view(0, a.size, shape), nil
}

// Ravel is a one-dimensional view of a's elements (cupy.ravel).
func (a *Array[T]) Ravel() (*Array[T], error) { return a.Reshape(-1) }

// Slice is a view of a[lo:hi] along the first axis (rows lo to hi-1 of
// a matrix), sharing a's memory.
func (a *Array[T]) Slice(lo, hi int) (*Array[T], error) {
	const op = "array slice"
	if err := a.check(op); err != nil {
		return nil, err
	}
	if len(a.shape) == 0 {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape}, Reason: "a 0-d array has no axis to slice"}
	}
	if lo < 0 || hi < lo || hi > a.shape[0] {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "[%d:%d] outside [0:%d]", lo, hi, a.shape[0])
	}
	row := 1
	for _, d := range a.shape[1:] {
		row *= d
	}
	shape := append([]int{hi - lo}, a.shape[1:]...)
	return a.view(lo*row, (hi-lo)*row, shape), nil
}

// Copy is a new array with a copy of a's elements, on a's stream.
func (a *Array[T]) Copy() (*Array[T], error) {
	const op = "array copy"
	if err := a.check(op); err != nil {
		return nil, err
	}
	out, err := alloc[T](op, a.s, a.shape)
	if err != nil {
		return nil, err
	}
	if a.size > 0 {
		if err := a.s.Copy(out.data, 0, a.data, 0, a.size); err != nil {
			return nil, errors.Join(err, out.Free())
		}
	}
	return out, nil
}
