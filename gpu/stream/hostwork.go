package stream

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

func init() {
	hostwork.Launch = func(s any, w *hostwork.Work) error {
		st, _ := s.(*Stream)
		return st.launchHostWork(w)
	}
}

// launchHostWork submits one AGENT_DISPATCH packet that runs w after the
// last users of the buffers it reads and writes, and becomes their last
// user: a host callback (w.Host) or a native call (w.Native). On an agent
// without a native stream, rocr runs a native call with stream 0 as host
// work in stream order.
func (s *Stream) launchHostWork(w *hostwork.Work) error {
	op := w.Op
	if err := s.core().Check(op); err != nil {
		return err
	}
	if (w.Host == nil) == (w.Native == nil) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "want exactly one of a host function and a native call")
	}
	// A few uses fit an array on the stack: the common call allocates
	// nothing (c.Agent keeps none of the slice).
	var few [4]core.MemUse
	uses := few[:0]
	if n := len(w.Reads) + len(w.Writes); n > len(few) {
		uses = make([]core.MemUse, 0, n)
	}
	for _, m := range w.Reads {
		uses = append(uses, core.MemUse{M: m, Acc: core.Read})
	}
	for _, m := range w.Writes {
		uses = append(uses, core.MemUse{M: m, Acc: core.Write})
	}
	for _, u := range uses {
		if err := u.M.CheckAccess(op, s.Device()); err != nil {
			return err
		}
	}
	c := s.core()
	if w.Host != nil {
		id := hostref.RegisterCallback(w.Host)
		if err := c.Agent(op, aql.CallbackWork{ID: id}.Call(), 0, uses...); err != nil {
			hostref.TakeCallback(id)
			return err
		}
		return nil
	}
	id := hostref.RegisterNative(w.Native)
	call := aql.NativeWork{ID: id}
	if w.QueuesOnly {
		call.Flags = aql.NativeQueuesOnly
	}
	if err := c.Agent(op, call.Call(), 0, uses...); err != nil {
		hostref.TakeNative(id)
		return err
	}
	return nil
}
