package stream

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Copy2D queues a copy of height rows of width elements from src to dst on
// s (hipMemcpy2DAsync); the ends and their checks are those of
// buffer.Copy2D. A Go slice source must stay unchanged, and a Go slice
// destination untouched, until the stream synchronizes.
func Copy2D[T any](s *Stream, dst, src buffer.View[T], width, height int) error {
	const op = "memcpy 2d async"
	if err := s.core().Check(op); err != nil {
		return err
	}
	d, sr := core.Region[T](dst).End(), core.Region[T](src).End()
	var t T
	return s.core().Rect(op, &d, &sr, width*sizeOf(t), height, 0)
}

// Memset2D queues setting the bytes of height rows of width elements of dst
// to c on s (hipMemset2DAsync); dst is device or pinned host memory.
func Memset2D[T any](s *Stream, dst buffer.View[T], c byte, width, height int) error {
	var t T
	return memset(s, "memset 2d async", core.Region[T](dst).End(), "a Buffer, Host or Pitched", width*sizeOf(t), height, 1, c)
}

// memset queues a fill of dst's depth slices of height rows of width bytes
// with c; kinds names the memory dst may be.
func memset(s *Stream, op string, dst core.RectEnd, kinds string, width, height, depth int, c byte) error {
	if err := s.core().Check(op); err != nil {
		return err
	}
	if dst.M == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "the destination must be %s", kinds)
	}
	return s.core().Box(op, &dst, nil, width, height, depth, c)
}

func sizeOf[T any](v T) int { return int(unsafe.Sizeof(v)) }

// Copy3D queues a copy of ext's elements from src to dst on s
// (hipMemcpy3DAsync); the ends and their checks are those of
// buffer.Copy3D. A Go slice source must stay unchanged, and a Go slice
// destination untouched, until the stream synchronizes.
func Copy3D[T any](s *Stream, dst, src buffer.Volume[T], ext buffer.Extent) error {
	const op = "memcpy 3d async"
	if err := s.core().Check(op); err != nil {
		return err
	}
	d, sr := core.Region[T](dst).End(), core.Region[T](src).End()
	var t T
	return s.core().Box(op, &d, &sr, ext.Width*sizeOf(t), ext.Height, ext.Depth, 0)
}

// Memset3D queues setting the bytes of ext's elements of dst to c on s
// (hipMemset3DAsync); dst is device or pinned host memory.
func Memset3D[T any](s *Stream, dst buffer.Volume[T], c byte, ext buffer.Extent) error {
	var t T
	return memset(s, "memset 3d async", core.Region[T](dst).End(), "a Buffer, Host, Pitched or Pitched3D", ext.Width*sizeOf(t), ext.Height, ext.Depth, c)
}
