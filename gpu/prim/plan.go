package prim

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Number is an element type of Reduce, Scan and Transform.
type Number interface {
	int32 | uint32 | int64 | uint64 | float32 | float64
}

// Key is a key type of the radix sort.
type Key interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64 | float32 | float64
}

// Value is a value type of SortPairs.
type Value interface {
	int32 | uint32 | int64 | uint64 | float32 | float64
}

// GPU launch shapes. A block of 256 work-items, a multiple of every
// target's warp (32 or 64).
const (
	blockSize  = 256
	smallBlock = 1024    // a one-launch reduction's block
	smallN     = 1 << 16 // inputs up to this reduce in one launch
	sortTile   = 4096    // keys per block in a radix pass
	radixBits  = 8
)

// forceGPUShape makes the cpu agent launch the GPU shapes (blocks of many
// work-items), so that the cpu's tests cover the GPU's paths too.
var forceGPUShape = false

// shape is how a call launches on its stream's device.
type shape struct {
	cpu bool // blocks of one work-item over contiguous spans
	sms int  // multiprocessors (the cpu agent: its workers)
	// resident is how many blocks of blockSize work-items a
	// multiprocessor holds at once by its limits on threads and blocks
	// (at least one); a kernel's registers and shared memory may allow
	// fewer (wave).
	resident int
}

func shapeOf(s *stream.Stream) shape {
	p := s.Device().Properties()
	r := p.MaxThreadsPerMultiProcessor / blockSize
	if p.MaxBlocksPerMultiProcessor > 0 {
		r = min(r, p.MaxBlocksPerMultiProcessor)
	}
	return shape{cpu: p.IsCPU && !forceGPUShape, sms: max(1, p.MultiProcessorCount), resident: max(1, r)}
}

// wave is a grid of blocks of blockSize work-items that the device runs
// all at once (one wave): perSM blocks per multiprocessor, the most that
// the kernel's launch bounds guarantee room for, or fewer where the
// device holds fewer.
func (g shape) wave(perSM int) int { return g.sms * min(perSM, g.resident) }

// aligned16 says whether a starts on a 16-byte boundary, as a vector
// load (kernel.Load4, Load2) needs.
func aligned16[T any](a buffer.Array[T]) bool { return uintptr(a.Ptr())%16 == 0 }

// split divides n elements into blocks of contiguous spans of at least
// minSpan elements, about four per worker: the cpu agent's shape.
func (g shape) split(n, minSpan int) (blocks, span int) {
	blocks = min(max(1, ceilDiv(n, minSpan)), 4*g.sms)
	span = max(1, ceilDiv(n, blocks))
	return ceilDiv(max(n, 1), span), span
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// checkStream is the checks every call makes first.
func checkStream(op string, s *stream.Stream) error {
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	return nil
}

// checkIn checks an input: not nil, nor a nil *Buffer (or view) in a
// non-nil Array, which would otherwise pass as an empty input.
func checkIn[T any](op, name string, a buffer.Array[T]) error {
	if m, _ := core.MemOf(a); a == nil || m == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: nil buffer", name)
	}
	return nil
}

// checkOut checks an output: not nil (checkIn), at least n elements.
func checkOut[T any](op, name string, a buffer.Array[T], n int) error {
	if err := checkIn(op, name, a); err != nil {
		return err
	}
	if a.Len() < n {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: %d elements, want at least %d", name, a.Len(), n)
	}
	return nil
}

// limits are T's lowest and highest values (infinities for floats).
func limits[T Number]() (lo, hi T) {
	pl, ph := unsafe.Pointer(&lo), unsafe.Pointer(&hi)
	switch any((*T)(nil)).(type) {
	case *int32:
		*(*int32)(pl), *(*int32)(ph) = -1<<31, 1<<31-1
	case *uint32:
		*(*uint32)(ph) = 1<<32 - 1
	case *int64:
		*(*int64)(pl), *(*int64)(ph) = -1<<63, 1<<63-1
	case *uint64:
		*(*uint64)(ph) = 1<<64 - 1
	case *float32:
		*(*uint32)(pl), *(*uint32)(ph) = 0xff800000, 0x7f800000
	case *float64:
		*(*uint64)(pl), *(*uint64)(ph) = 0xfff0000000000000, 0x7ff0000000000000
	}
	return lo, hi
}
