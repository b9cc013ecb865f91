package core

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
)

// CopierOf returns the agent's copy engine when its queues are hardware
// rings that cannot run the AGENT_DISPATCH packets of copies, fills and
// host callbacks (the rocm driver); nil otherwise.
func CopierOf(a *rocr.Agent) rocr.Copier {
	if _, hw := a.Driver().(rocr.HardwareQueues); !hw {
		return nil
	}
	c, _ := a.Driver().(rocr.Copier)
	return c
}

// RunOnCopier carries out one agent-dispatch operation (rocr.AgentCopy,
// AgentFill or AgentCallback, with the packet's arguments) on the host and
// the agent's copy engine, synchronously. Go memory (CopySrcHost,
// CopyDstHost) is staged through the agent's fine-grained host pool, since
// the engine copies only pool memory.
func RunOnCopier(a *rocr.Agent, c rocr.Copier, fn uint16, args [4]uint64) error {
	const op = "copy engine"
	switch fn {
	case rocr.AgentCallback:
		f, ok := hostref.TakeCallback(args[0])
		if !ok {
			return gpu.Errorf(gpu.ErrorInvalidValue, op, "no callback %d", args[0])
		}
		return f()
	case rocr.AgentFill:
		return waitCopy(a, func(done *rocr.Signal) error {
			return c.FillAsync(uintptr(args[0]), args[1], args[2], int(args[3]), nil, done)
		})
	case rocr.AgentRect:
		return rectOnCopier(a, c, args[0])
	case rocr.AgentCopy:
	default:
		return gpu.Errorf(gpu.ErrorInvalidValue, op, "unknown function code %#x", fn)
	}
	n := args[2]
	if n == 0 {
		return nil
	}
	dst, src := uintptr(args[0]), uintptr(args[1])
	var hostDst []byte
	if args[3]&(rocr.CopySrcHost|rocr.CopyDstHost) != 0 {
		p, err := a.Pool(rocr.SegmentGlobal, rocr.FlagFineGrained)
		if err != nil {
			return gpu.Wrap(op, err)
		}
		stage, err := p.Allocate(n)
		if err != nil {
			return gpu.Wrap(op, err)
		}
		defer stage.Free()
		if args[3]&rocr.CopySrcHost != 0 {
			b, err := rocr.PinnedBytes(args[1], n)
			if err != nil {
				return &gpu.Error{Code: gpu.ErrorInvalidValue, Op: op, Msg: "host source", Err: err}
			}
			copy(hostmem.Bytes(stage.Base, uintptr(n)), b)
			src = stage.Base
		} else {
			b, err := rocr.PinnedBytes(args[0], n)
			if err != nil {
				return &gpu.Error{Code: gpu.ErrorInvalidValue, Op: op, Msg: "host destination", Err: err}
			}
			hostDst = b
			dst = stage.Base
		}
	}
	err := waitCopy(a, func(done *rocr.Signal) error { return c.CopyAsync(dst, src, n, nil, done) })
	if err == nil && hostDst != nil {
		copy(hostDst, hostmem.Bytes(dst, uintptr(n)))
	}
	return err
}

func waitCopy(a *rocr.Agent, start func(done *rocr.Signal) error) error {
	done, err := rocr.NewSignalFor(a, 1)
	if err != nil {
		return gpu.Wrap("copy engine", err)
	}
	defer done.Destroy()
	if err := start(done); err != nil {
		return gpu.Wrap("copy engine", err)
	}
	done.Wait(rocr.CondEQ, 0, 0, rocr.WaitBlocked)
	if err := done.Err(); err != nil {
		return gpu.Wrap("copy engine", err)
	}
	return nil
}
