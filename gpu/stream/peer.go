package stream

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Work across devices. A stream's device may use another device's
// coarse-grained memory once dev.EnablePeerAccess(other) was called: then
// kernels take it as an argument and Copy moves it, one packet on the
// stream's queue (on cuda one cuMemcpyAsync, which unified addressing turns
// into a peer copy). Events are shared by all devices: s.WaitEvent(ev) on
// an event recorded on another device's stream is a BARRIER_AND on that
// device's completion signal, as within one device.

// CopyPeer copies n elements from src[srcOff:] to dst[dstOff:], buffers of
// any devices (hipMemcpyPeerAsync). When the stream's device may access
// both (it owns them, or has peer access to their owners) it is Copy: one
// packet, asynchronous. Otherwise the copy is staged through pinned host
// memory by the two owners' copy engines (buffer.Copy) and is
// synchronous: CopyPeer waits for the stream's earlier work and the
// buffers' last users, copies, and returns when the data is in dst.
func (s *Stream) CopyPeer(dst buffer.Object, dstOff int, src buffer.Object, srcOff, n int) error {
	const op = "memcpy peer async"
	dm, sm := memOf(dst), memOf(src)
	if dm == nil || sm == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := s.core().Check(op); err != nil {
		return err
	}
	if dm.CheckAccess(op, s.core().Device()) == nil && sm.CheckAccess(op, s.core().Device()) == nil {
		return s.Copy(dst, dstOff, src, srcOff, n)
	}
	// CopyMem checks the buffers, the element types and the ranges.
	if err := s.core().Drain(op); err != nil {
		return err
	}
	defer s.core().Unlock()
	return core.CopyMem(dm, dstOff, sm, srcOff, n)
}
