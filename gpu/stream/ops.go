package stream

import (
	"reflect"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// memOf is o's memory; nil for a nil interface, a nil buffer or a zero
// one, which New did not make. Empty memory from New(dev, 0) is memory.
func memOf(o buffer.Object) *core.Mem {
	m, _ := core.MemOf(o)
	if !m.Made() {
		return nil
	}
	return m
}

func (s *Stream) checkMem(op string, m *core.Mem, off, n int) error {
	if err := s.core().Check(op); err != nil {
		return err
	}
	if err := m.CheckAccess(op, s.core().Device()); err != nil {
		return err
	}
	if off < 0 || n < 0 || off > m.Len() || n > m.Len()-off {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "elements [%d, %d) outside %s of %d elements", off, off+n, m, m.Len())
	}
	return nil
}

// CopyToDevice copies host memory src into dst's elements from off
// (hipMemcpyAsync host to device). src must stay unchanged until the copy
// completes; the stream keeps it alive.
func CopyToDevice[T any](s *Stream, dst buffer.Object, off int, src []T) error {
	return copyHost(s, "memcpy async host to device", dst, off, src, true)
}

// CopyToHost copies src's elements from off into dst (hipMemcpyAsync
// device to host). dst must not be touched until the stream synchronizes.
func CopyToHost[T any](s *Stream, dst []T, src buffer.Object, off int) error {
	return copyHost(s, "memcpy async device to host", src, off, dst, false)
}

// copyHost queues a copy between host and the elements of obj from off,
// into obj when toDevice. The stream keeps host pinned until the copy
// completes.
func copyHost[T any](s *Stream, op string, obj buffer.Object, off int, host []T, toDevice bool) error {
	m := memOf(obj)
	if m == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := checkElem[T](op, m); err != nil {
		return err
	}
	if err := s.checkMem(op, m, off, len(host)); err != nil {
		return err
	}
	if len(host) == 0 {
		return nil
	}
	b := core.AsBytes(host)
	id := hostref.PinHost(b)
	dev := uint64(m.Addr()) + uint64(off*m.ElemSize())
	if toDevice {
		return s.core().Agent(op, aql.CopyWork{Dst: dev, Src: id, Bytes: uint64(len(b)), Flags: aql.CopySrcHost}.Call(), id, core.MemUse{M: m, Acc: core.Write})
	}
	return s.core().Agent(op, aql.CopyWork{Dst: id, Src: dev, Bytes: uint64(len(b)), Flags: aql.CopyDstHost}.Call(), id, core.MemUse{M: m, Acc: core.Read})
}

// Copy copies n elements from src[srcOff:] to dst[dstOff:] on the stream
// (hipMemcpyAsync device to device). Both must be accessible by the
// stream's device.
func (s *Stream) Copy(dst buffer.Object, dstOff int, src buffer.Object, srcOff, n int) error {
	const op = "memcpy async device to device"
	dm, sm := memOf(dst), memOf(src)
	if dm == nil || sm == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if dm.Elem() != sm.Elem() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "element types differ: %s and %s", dm.Elem(), sm.Elem())
	}
	if err := s.checkMem(op, dm, dstOff, n); err != nil {
		return err
	}
	if err := s.checkMem(op, sm, srcOff, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	es := dm.ElemSize()
	cp := aql.CopyWork{Dst: uint64(dm.Addr()) + uint64(dstOff*es), Src: uint64(sm.Addr()) + uint64(srcOff*es), Bytes: uint64(n * es)}
	return s.core().Agent(op, cp.Call(), 0, core.MemUse{M: dm, Acc: core.Write}, core.MemUse{M: sm, Acc: core.Read})
}

// Fill sets every element of b to v on the stream (hipMemsetAsync and its
// D16/D32 forms); T must be 1, 2, 4 or 8 bytes.
func Fill[T any](s *Stream, b buffer.Object, v T) error {
	const op = "memset async"
	m := memOf(b)
	if m == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := checkElem[T](op, m); err != nil {
		return err
	}
	if err := s.checkMem(op, m, 0, m.Len()); err != nil {
		return err
	}
	pat, es, err := core.Pattern(v)
	if err != nil {
		return err
	}
	return s.core().Agent(op, aql.FillWork{Dst: uint64(m.Addr()), Pattern: pat, Count: uint64(m.Len()), ElemSize: uint64(es)}.Call(), 0, core.MemUse{M: m, Acc: core.Write})
}

// Memset sets every byte of b to c on the stream (hipMemsetAsync).
func (s *Stream) Memset(b buffer.Object, c byte) error {
	const op = "memset async"
	m := memOf(b)
	if m == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := s.checkMem(op, m, 0, m.Len()); err != nil {
		return err
	}
	return s.core().Agent(op, aql.FillWork{Dst: uint64(m.Addr()), Pattern: uint64(c), Count: uint64(m.Size()), ElemSize: 1}.Call(), 0, core.MemUse{M: m, Acc: core.Write})
}

// LaunchHostFunc runs fn on the host when the stream reaches this point
// (hipLaunchHostFunc). An error or panic from fn fails the stream.
func (s *Stream) LaunchHostFunc(fn func() error) error {
	const op = "launch host func"
	if fn == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil function")
	}
	id := hostref.RegisterCallback(fn)
	if err := s.core().Agent(op, aql.CallbackWork{ID: id}.Call(), 0); err != nil {
		hostref.TakeCallback(id)
		return err
	}
	return nil
}

// checkElem makes the host type agree with the buffer's element type:
// the same size is not enough (int32 bits in a float32 buffer are a wrong
// value, not an error the GPU reports).
func checkElem[T any](op string, m *core.Mem) error {
	if t := reflect.TypeFor[T](); t != m.Elem() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "host elements of type %s (%d bytes), %s holds %s (%d-byte elements)", t, t.Size(), m, m.Elem(), m.ElemSize())
	}
	return nil
}

// AddCallback runs fn on the host when the stream reaches this point, with
// the stream and its status then: nil, or the failure of the stream's
// earlier work (hipStreamAddCallback, whose callback receives the
// stream's hipError_t). On a stream that runs, fn runs in order, as a
// LaunchHostFunc's function does, and later work waits for it; on a stream
// whose earlier work failed, which runs nothing more, fn still runs once,
// with that failure, when the failed work is done. fn must not call the
// stream's own Synchronize or Destroy (ErrNotPermitted).
func (s *Stream) AddCallback(fn func(s *Stream, status error)) error {
	const op = "stream add callback"
	if fn == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil callback")
	}
	if err := s.core().Check(op); err != nil {
		return err
	}
	// One host function: in order it runs fn with the stream's status
	// (nil: the stream runs); on a failed stream, which discards it, its
	// failure hook runs fn with the failure once the failed work is done.
	var ran atomic.Bool
	run := func(status error) {
		if ran.CompareAndSwap(false, true) {
			fn(s, status)
		}
	}
	c := s.core()
	id := hostref.RegisterCallbackOr(func() error { run(c.Err()); return nil }, func(err error) {
		if sticky := c.Err(); sticky != nil {
			err = sticky // the failure itself, as the stream reports it
		}
		run(err)
	})
	if err := c.Agent(op, aql.CallbackWork{ID: id}.Call(), 0); err != nil {
		hostref.DiscardCallback(id, nil)
		if failed := c.Err(); failed != nil {
			// Earlier work failed before the callback could be queued:
			// it runs now, with that failure, as it would have in order.
			go run(failed)
			return nil
		}
		return err
	}
	return nil
}
