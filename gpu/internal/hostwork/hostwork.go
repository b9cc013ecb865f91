// Package hostwork lets gpu packages queue work that is not a kernel (Go
// code on the host, a library call on the agent's native stream) on a
// stream, with the buffers it reads and writes declared to the stream's
// dependency tracking, so it is ordered with kernels and copies like they
// are: Launch queues it on a stream (a *gpu/stream.Stream converts to
// the *core.Stream it is defined on). The work's functions reach the
// agent through internal/hostref, rocr's registry of the Go values that
// packets refer to by id.
package hostwork

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// Work is one piece of stream work. Exactly one of Host and Native is set.
type Work struct {
	Op     string      // names the work in errors
	Reads  []*core.Mem // buffers the work reads
	Writes []*core.Mem // buffers the work writes
	// Host runs on the host in stream order (a host callback).
	Host func() error
	// Native is called with the agent's native stream in stream order
	// (aql.AgentNative); agents without one call it with 0 as host work.
	Native hostref.NativeFunc
	// QueuesOnly says Native only queues work on the stream and returns:
	// an idle stream may then make the call on the caller's goroutine
	// (aql.NativeQueuesOnly).
	QueuesOnly bool
}

// Launch submits on s one AGENT_DISPATCH packet that runs w after the
// last users of the buffers it reads and writes, and becomes their last
// user: a host callback (w.Host) or a native call (w.Native). On an agent
// without a native stream, rocr runs a native call with stream 0 as host
// work in stream order.
func Launch(s *core.Stream, w *Work) error {
	op := w.Op
	if err := s.Check(op); err != nil {
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
	c := s
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
