package core

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// Agent submits one AGENT_DISPATCH packet (a copy, fill or host callback)
// that touches mems, after the barriers their last users need. pin is a
// host slice pinned for the packet, released when it completes.
func (s *Stream) Agent(op string, call aql.AgentCall, pin uint64, uses ...MemUse) error {
	if before, after := debug.Copy(); before || after {
		if info, _ := aql.Code(call.Func); info.Transfer {
			return s.agentSerialized(op, call, pin, uses, before, after)
		}
	}
	return s.agent(op, call, pin, uses)
}

// agentSerialized is Agent under AMD_SERIALIZE_COPY, as HIP has it: the
// stream is drained before (1) and after (2) the copy or fill, or both (3),
// so that a failure names the operation that caused it. A capture records
// the operation as it is.
func (s *Stream) agentSerialized(op string, call aql.AgentCall, pin uint64, uses []MemUse, before, after bool) error {
	if s.captureOf() != nil {
		return s.agent(op, call, pin, uses)
	}
	if before {
		if err := s.Synchronize(); err != nil {
			if pin != 0 {
				hostref.UnpinHost(pin)
			}
			return err
		}
	}
	if err := s.agent(op, call, pin, uses); err != nil || !after {
		return err
	}
	return s.Synchronize()
}

func (s *Stream) agent(op string, call aql.AgentCall, pin uint64, uses []MemUse) error {
	if annotate.On() {
		annotate.Push(op)
		defer annotate.Pop()
	}
	if err := s.Lock(op); err != nil {
		if pin != 0 {
			hostref.UnpinHost(pin)
		}
		return err
	}
	defer s.unlock()
	if c := s.captureOf(); c != nil {
		return s.captureAgent(c, op, call, pin, uses)
	}
	f, err := s.orderedFence(op, uses)
	if err != nil {
		if pin != 0 {
			hostref.UnpinHost(pin)
		}
		return err
	}
	p := call.Packet(f.Signal().Handle())
	e := s.Push()
	e.fence, e.pin = f, pin
	return s.Submit(unsafe.Pointer(&p), AgentHeader, e)
}

// orderedFence makes the fence of op, an operation of the locked stream s
// that uses uses: s joins the legacy stream, the uses are recorded with f
// as their last user, and a barrier waits for the fences they depend on.
// On failure nothing stays recorded and f is released.
func (s *Stream) orderedFence(op string, uses []MemUse) (*Fence, error) {
	f, err := s.newFence(op)
	if err != nil {
		return nil, err
	}
	var buf [2 * (1 + MaxReaders)]*Fence
	deps, err := s.joinLegacy(op, buf[:0])
	if err == nil {
		deps, err = useAll(s, f, uses, deps)
	}
	if err != nil {
		for _, d := range deps {
			s.fences.Release(d)
		}
		f.Cancel()
		s.fences.Release(f)
		return nil, err
	}
	if len(deps) > 0 {
		if err := s.Barrier(deps, false); err != nil {
			f.Cancel()
			s.fences.Release(f)
			return nil, err
		}
	}
	return f, nil
}

// drain waits on the host for every packet of the stream; s is locked.
func (s *Stream) drain() error {
	s.reap(true)
	if s.tail != nil {
		return s.tail.Wait(0)
	}
	return nil
}

// Drain locks the stream, waits on the host for its work, and leaves it
// locked for a synchronous operation that must follow that work (a copy
// staged through the host); Unlock ends it.
func (s *Stream) Drain(op string) error {
	if err := s.Lock(op); err != nil {
		return err
	}
	if err := s.Refuse(op); err != nil {
		s.mu.Unlock()
		return err
	}
	if err := s.drain(); err != nil {
		s.mu.Unlock()
		return errs.Wrap(op, err)
	}
	return nil
}

// Unlock releases the stream taken by Lock or Drain.
func (s *Stream) Unlock() { s.mu.Unlock() }

// Record submits a BARRIER_AND with no dependency and returns its fence,
// retained for the caller (hipEventRecord).
func (s *Stream) Record(op string, timing bool) (*Fence, error) {
	if err := s.Lock(op); err != nil {
		return nil, err
	}
	defer s.unlock()
	if c := s.captureOf(); c != nil {
		return s.captureRecord(c, "event record")
	}
	var buf [aql.MaxBarrierDeps]*Fence
	deps, err := s.joinLegacy(op, buf[:0])
	if err == nil && len(deps) > aql.MaxBarrierDeps {
		// The legacy stream waiting for many streams: the record's own
		// packet has room for five.
		err = s.Barrier(deps, false) // takes over the deps' references
		deps = nil
	}
	if err != nil {
		for _, d := range deps {
			s.fences.Release(d)
		}
		return nil, err
	}
	f, err := s.newFence("event record")
	if err != nil {
		for _, d := range deps {
			s.fences.Release(d)
		}
		return nil, err
	}
	if !timing {
		f.Signal().SkipTimestamps() // hipEventDisableTiming: an agent may skip them
	}
	var p aql.BarrierAnd
	p.CompletionSignal = f.Signal().Handle()
	e := s.Push()
	e.fence = f
	for i, d := range deps { // the entry holds them until the record completes
		p.DepSignal[i] = d.Signal().Handle()
		e.deps[i] = d
	}
	e.ndeps = len(deps)
	if err := s.Submit(unsafe.Pointer(&p), BarrierHeader, e); err != nil {
		return nil, err
	}
	f.Retain()
	return f, nil
}

// WaitFences makes later work wait for deps (hipStreamWaitEvent), taking
// over their references.
func (s *Stream) WaitFences(op string, deps []*Fence) error {
	if err := s.Lock(op); err != nil {
		for _, d := range deps {
			d.Release()
		}
		return err
	}
	defer s.unlock()
	if ok, err := s.captureWait(op, deps); ok {
		return err
	}
	// A record of this stream, or one a barrier earlier in its queue
	// already waits for (or for later work of its queue), orders nothing
	// more: no packet for it. Synchronize still waits for it, through the
	// tail, which is behind it.
	kept := deps[:0]
	for _, d := range deps {
		if !d.shared && (d.queue == s.q.ID() || s.ordered(d)) {
			d.Release()
			continue
		}
		kept = append(kept, d)
	}
	clear(deps[len(kept):])
	deps, err := s.joinLegacy(op, kept)
	if err != nil {
		for _, d := range deps {
			d.Release()
		}
		return err
	}
	if len(deps) == 0 {
		return nil
	}
	for _, d := range deps {
		if !d.shared { // another process's record: no queue of ours
			s.noteWaited(d)
		}
	}
	return s.Barrier(deps, true)
}

// MemUse is one buffer an agent packet touches, and how.
type MemUse struct {
	M   *Mem
	Acc Access
}
