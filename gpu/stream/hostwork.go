package stream

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
)

func init() {
	hostwork.Launch = func(s any, w *hostwork.Work) error {
		st, _ := s.(*Stream)
		return st.launchHostWork(w)
	}
}

// launchHostWork submits one AGENT_DISPATCH packet that runs w after the
// last users of the buffers w reads and writes, and becomes their last
// user: a host callback (w.Host) or a native call (w.Native).
func (s *Stream) launchHostWork(w *hostwork.Work) error {
	op := w.Op
	if s == nil {
		return gpu.Errorf(gpu.ErrorInvalidHandle, op, "nil stream")
	}
	if (w.Host == nil) == (w.Native == nil) {
		return gpu.Errorf(gpu.ErrorInvalidValue, op, "want exactly one of a host function and a native call")
	}
	mems := make([]*buffer.Mem, 0, len(w.Reads)+len(w.Writes))
	mems = append(append(mems, w.Reads...), w.Writes...)
	for _, m := range mems {
		if err := m.CheckAccess(op, s.dev); err != nil {
			return err
		}
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if c := buffer.CopierOf(s.dev.Agent()); c != nil {
		// A hardware ring runs no agent work: the work runs here, in
		// order, once the stream and the buffers' last users are done.
		fn := w.Host
		if fn == nil {
			native := w.Native
			fn = func() error { return native(0) }
		}
		return s.onCopier(op, c, rocr.AgentCallback, [4]uint64{rocr.RegisterCallback(fn)}, 0, mems)
	}
	f, err := s.fences.New(s.q)
	if err != nil {
		return err
	}
	var deps []*buffer.Fence
	for _, m := range mems {
		if d := m.Use(f); d != nil {
			deps = append(deps, d)
		}
	}
	if len(deps) > 0 {
		if err := s.barrier(deps, false); err != nil {
			f.Cancel()
			s.fences.Release(f)
			return err
		}
	}
	var p aql.AgentDispatch
	if w.Host != nil {
		p.Type, p.Arg[0] = rocr.AgentCallback, rocr.RegisterCallback(w.Host)
	} else {
		p.Type, p.Arg[0] = rocr.AgentNative, rocr.RegisterNative(w.Native)
	}
	p.CompletionSignal = f.Signal().Handle()
	e := s.push()
	e.fence = f
	if err := s.submit(unsafe.Pointer(&p), agentHeader, e); err != nil {
		rocr.TakeCallback(p.Arg[0])
		rocr.TakeNative(p.Arg[0])
		return err
	}
	return nil
}
