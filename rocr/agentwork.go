package rocr

import (
	"math"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// maxAgentBytes bounds a fill's extent so that it is a valid slice length.
const maxAgentBytes = math.MaxInt64

// takeHost takes the host function registered as id through take; what
// names it in the error when there is none.
func takeHost[F any](take func(id uint64) (F, bool), what string, id uint64) (F, error) {
	f, ok := take(id)
	if !ok {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, what, "no %s %d", what, id)
	}
	return f, nil
}

// decodeWork fills w from p for agent a. It takes the packet's registrations
// (callback, native call, 2-D descriptor), so a packet is decoded once.
func decodeWork(w *spi.AgentWork, a *Agent, p *aql.AgentDispatch) error {
	*w = spi.AgentWork{Kind: p.Type, Completion: p.CompletionSignal}
	var err error
	switch p.Type {
	case aql.AgentCopy:
		c := aql.DecodeCopy(p.Arg)
		if c.Bytes == 0 {
			return nil
		}
		if w.Dst, err = copyEnd(a, "copy", c.Dst, c.Bytes, c.Flags&aql.CopyDstHost != 0, "destination"); err != nil {
			return err
		}
		if w.Src, err = copyEnd(a, "copy", c.Src, c.Bytes, c.Flags&aql.CopySrcHost != 0, "source"); err != nil {
			return err
		}
		w.Size = c.Bytes
		return nil
	case aql.AgentFill:
		f := aql.DecodeFill(p.Arg)
		es, count := f.ElemSize, f.Count
		if es != 1 && es != 2 && es != 4 && es != 8 {
			return hsa.Errorf(hsa.StatusErrorInvalidArgument, "fill", "element size %d: want 1, 2, 4 or 8", es)
		}
		w.Pattern, w.ElemSize = f.Pattern, int(es)
		if count == 0 {
			return nil
		}
		if count > maxAgentBytes/es {
			return hsa.Errorf(hsa.StatusErrorInvalidArgument, "fill", "%d elements of %d bytes overflow", count, es)
		}
		if w.Dst, err = copyEnd(a, "fill", f.Dst, count*es, false, "destination"); err != nil {
			return err
		}
		w.Count, w.Size = count, count*es
		return nil
	case aql.AgentRect:
		if w.Rect, err = takeRect(aql.DecodeRect(p.Arg).ID); err != nil {
			return err
		}
		return checkRectRanges(w.Rect, a)
	case aql.AgentCallback:
		w.Callback, err = takeHost(hostref.TakeCallback, "callback", aql.DecodeCallback(p.Arg).ID)
		return err
	case aql.AgentNative:
		w.Native, err = takeHost(hostref.TakeNative, "native call", aql.DecodeNative(p.Arg).ID)
		return err
	}
	return hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "agent dispatch", "unknown function code %#x", p.Type)
}

// copyEnd checks one end of n bytes: a pinned Go slice at least n long, or
// a range in one live allocation the agent may access.
func copyEnd(a *Agent, op string, v, n uint64, host bool, what string) (spi.CopyEnd, error) {
	if host {
		b, err := pinnedBytes(v, n)
		if err != nil {
			return spi.CopyEnd{}, hsa.Errorf(hsa.StatusOf(err), op, "%s: %w", what, err)
		}
		return spi.CopyEnd{Host: b}, nil
	}
	if v == 0 {
		return spi.CopyEnd{}, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%s: null address", what)
	}
	if _, err := checkRange(a, uintptr(v), uintptr(n)); err != nil {
		return spi.CopyEnd{}, hsa.Errorf(hsa.StatusOf(err), op, "%s: %w", what, err)
	}
	return spi.CopyEnd{Addr: uintptr(v)}, nil
}

// pinnedBytes returns the first n bytes of the slice pinned under id, or
// an error when none is pinned there or it is shorter: what a copy packet's
// host end must satisfy.
func pinnedBytes(id, n uint64) ([]byte, error) {
	b, ok := hostref.HostBuffer(id)
	if !ok {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "copy", "host buffer %d is not pinned", id)
	}
	if uint64(len(b)) < n {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "copy", "host buffer of %d bytes is shorter than %d", len(b), n)
	}
	return b[:n], nil
}

// checkBufferArgs applies the ownership rules to the buffer arguments of
// one dispatch, as every agent does (through spi.Host): each non-null
// address must lie in an allocation agent a may access.
func checkBufferArgs(a *Agent, kernel string, kernarg uintptr, args []spi.BufferArg) error {
	for i := range args {
		addr := *(*uintptr)(hostmem.At(kernarg + args[i].Offset))
		if addr == 0 {
			continue
		}
		if st, err := checkPointer(a, addr); err != nil {
			if args[i].Name != "" {
				return hsa.Errorf(st, "dispatch", "kernel %s argument %s: %w", kernel, args[i].Name, err)
			}
			return hsa.Errorf(st, "dispatch", "kernel %s argument at offset %d: %w", kernel, args[i].Offset, err)
		}
	}
	return nil
}

// checkRectRanges validates a 2-D or 3-D descriptor and checks that its pool
// memory ends lie in allocations agent a may access.
func checkRectRanges(r *spi.Rect, a *Agent) error {
	if err := r.Check(); err != nil {
		return err
	}
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	op := "copy 2d"
	if r.Depth > 1 {
		op = "copy 3d"
	}
	if r.DstHost == nil {
		if _, err := copyEnd(a, op, r.Dst, r.DstExtent(), false, "destination"); err != nil {
			return err
		}
	}
	if !r.Fill && r.SrcHost == nil {
		if _, err := copyEnd(a, op, r.Src, r.SrcExtent(), false, "source"); err != nil {
			return err
		}
	}
	return nil
}

// takeRect takes the descriptor of a 2-D or 3-D copy from hostref,
// checked.
func takeRect(id uint64) (*spi.Rect, error) {
	r, ok := hostref.TakeRect[spi.Rect](id)
	if !ok {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "copy 2d", "no 2-d or 3-d copy %d", id)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return r, nil
}
