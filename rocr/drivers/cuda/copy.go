package cuda

import (
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// FailPacket settles the stream before a packet that rocr rejects fails,
// so no completion of earlier work lands after its signal
// (spi.PacketFailer).
func (e *executor) FailPacket(err error) error {
	e.ctx()
	return e.fail(err)
}

// AgentWork queues a copy or fill on the stream, runs a native call with
// the stream, or runs a host callback once the stream has drained.
func (e *executor) AgentWork(q spi.Queue, w *spi.AgentWork) error {
	e.ctx()
	switch w.Kind {
	case aql.AgentCopy:
		if w.Size > 0 {
			// Unified addressing: one call for every direction. Pageable
			// sources are staged at the call and pageable destinations are
			// written before it returns, so stream order holds for them.
			if r := e.sa.call(e.api.cuMemcpyAsync, w.Dst.Ptr(), w.Src.Ptr(), uintptr(w.Size), e.stream); r != cudaSuccess {
				return e.fail(cuErr("copy", "cuMemcpyAsync", r))
			}
		}
	case aql.AgentFill:
		if err := e.fill(w); err != nil {
			return e.fail(err)
		}
	case aql.AgentRect:
		if err := e.rect(w.Rect); err != nil {
			return e.fail(err)
		}
	case aql.AgentCallback:
		// Host callbacks run here, after the stream drains: no callback from a
		// CUDA thread into Go is needed.
		if err := e.sync(); err != nil {
			return err
		}
		if err := w.RunHost(0); err != nil {
			return err
		}
		completeHost(w.Completion)
		return nil
	case aql.AgentNative:
		// A library call that queues its work on this stream, with the
		// context current (made so above): stream order holds without
		// draining.
		if err := w.RunHost(e.stream); err != nil {
			return e.fail(err)
		}
	default:
		return e.fail(hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "agent dispatch", "unknown function code %#x", w.Kind))
	}
	if err := e.stampAround(w.Completion, true); err != nil {
		return e.fail(err)
	}
	_, err := e.complete(w.Completion, false)
	return err
}

func (e *executor) fill(w *spi.AgentWork) error {
	if w.Size == 0 {
		return nil
	}
	dst, es, pattern := uint64(w.Dst.Addr), uint64(w.ElemSize), w.Pattern
	if dst%es != 0 {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "fill", "destination %#x is not aligned to the %d-byte element", dst, es)
	}
	a := e.api
	d, c := uintptr(dst), uintptr(w.Count)
	var r cuResult
	switch es {
	case 1:
		r = e.sa.call(a.cuMemsetD8Async, d, uintptr(uint8(pattern)), c, e.stream)
	case 2:
		r = e.sa.call(a.cuMemsetD16Async, d, uintptr(uint16(pattern)), c, e.stream)
	case 4:
		r = e.sa.call(a.cuMemsetD32Async, d, uintptr(uint32(pattern)), c, e.stream)
	case 8:
		lo, hi := uintptr(uint32(pattern)), uintptr(uint32(pattern>>32))
		if lo == hi {
			r = e.sa.call(a.cuMemsetD32Async, d, lo, 2*c, e.stream)
			break
		}
		// Two strided 32-bit fills: the low words, then the high words, as
		// a 2D memset of one element per 8-byte row.
		if r = e.sa.call(a.cuMemsetD2D32Async, d, 8, lo, 1, c, e.stream); r == cudaSuccess {
			r = e.sa.call(a.cuMemsetD2D32Async, d+4, 8, hi, 1, c, e.stream)
		}
	}
	if r != cudaSuccess {
		return cuErr("fill", "cuMemset", r)
	}
	return nil
}
