package core

import (
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// Push records an in-flight packet, waiting for the oldest when the ring
// is full. Completed packets are reaped after each submission (reapAfter),
// while the agent runs the packet just published.
func (s *Stream) Push() *entry {
	if s.count == len(s.ring) {
		s.reap(false)
	}
	for s.count == len(s.ring) {
		s.reapOne(true)
	}
	e := s.at(s.head + s.count)
	s.count++
	return e
}

// at is the ring's entry i, counting on past its end: the ring's length
// is twice the queue's, a power of two, so a mask finds it (a division,
// on every submission, cost more).
func (s *queueState) at(i int) *entry { return &s.ring[i&(len(s.ring)-1)] }

// reap releases completed in-flight packets; wait: wait for all of them.
func (s *queueState) reap(wait bool) {
	for s.count > 0 {
		if !s.reapOne(wait) {
			return
		}
	}
}

// reapOne releases the oldest run of entries up to and including the first
// one with a fence, if that fence completed (or after waiting for it).
func (s *queueState) reapOne(wait bool) bool {
	n := 0
	var f *Fence
	for i := 0; i < s.count; i++ {
		e := s.at(s.head + i)
		n++
		if e.fence != nil {
			f = e.fence
			break
		}
	}
	if f == nil {
		// Every chain of packets ends in one with a fence; entries without
		// one are left by a submission that failed half way (the queue was
		// destroyed). Only a destroyed queue's entries can be dropped.
		if !wait || !s.q.Destroyed() {
			return false
		}
	} else if !f.Done() {
		if !wait {
			return false
		}
		_ = f.Wait(0)
	}
	for i := 0; i < n; i++ {
		s.release(&s.ring[s.head])
		s.head = (s.head + 1) & (len(s.ring) - 1)
		s.count--
	}
	return true
}

// release lets go of what an in-flight entry holds and clears it.
func (s *queueState) release(e *entry) {
	if e.check != nil {
		s.checks.Add(-1)
		// A packet dropped unsubmitted or cut short by a destroyed queue
		// ran no kernel whose record could be read.
		if e.fence != nil && e.fence.Done() && e.fence.Err() == nil {
			s.fail(e.check())
		}
	}
	if e.fence != nil {
		s.fences.Release(e.fence)
	}
	for j := 0; j < e.ndeps; j++ {
		s.fences.Release(e.deps[j])
	}
	if e.pin != 0 {
		hostref.UnpinHost(e.pin)
	}
	s.putArea(e.area)
	*e = entry{}
}

// Submit writes one packet. body is the whole 64-byte packet; its header
// word is replaced by h. e, the entry push returned for it, holds the
// packet's fence, which becomes the tail. If the packet cannot be
// submitted, e is dropped.
func (s *Stream) Submit(body unsafe.Pointer, h aql.Header, e *entry) error {
	if _, err := s.q.Submit(body, h); err != nil {
		s.Drop(e)
		return s.queueErr("submit", err)
	}
	if e.fence != nil {
		s.SetTail(e.fence)
	}
	s.reap(false)
	return nil
}

// SetTail makes f, a fence of a packet just published, the stream's last.
func (s *Stream) SetTail(f *Fence) {
	if s.legHeld != legNone {
		s.recordLegacy(f)
	}
	f.Retain()
	if s.tail != nil {
		s.fences.Release(s.tail)
	}
	s.tail = f
}

// Drop undoes the last push for a packet that was not published: its
// fence is cancelled, so that buffers that already recorded it as their
// last use do not wait for it forever.
func (s *Stream) Drop(e *entry) {
	if e.fence != nil {
		e.fence.Cancel()
	}
	s.release(e)
	s.count--
}

var (
	BarrierHeader  = aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)
	AgentHeader    = aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
	dispatchHeader = aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
)

// Barrier submits BARRIER_AND packets for deps, five to a packet, chained
// by the barrier bit. The stream takes over the deps' references and keeps
// them until a later fence completes: the last packet's own when fenced
// (a WaitEvent, which a Synchronize must see), otherwise the fence of the
// packet the caller submits right after (a launch, a copy), which saves a
// completion signal per dependency.
func (s *Stream) Barrier(deps []*Fence, fenced bool) error {
	var f *Fence
	if fenced {
		var err error
		if f, err = s.newFence("wait event"); err != nil {
			for _, d := range deps {
				s.fences.Release(d)
			}
			return err
		}
		f.Signal().SkipTimestamps() // a wait, not an event record
	}
	for first := true; first || len(deps) > 0; first = false {
		var p aql.BarrierAnd
		e := s.Push()
		n := min(len(deps), aql.MaxBarrierDeps)
		for i := 0; i < n; i++ {
			p.DepSignal[i] = deps[i].Signal().Handle()
			e.deps[i] = deps[i]
		}
		e.ndeps = n
		deps = deps[n:]
		last := len(deps) == 0
		if last && f != nil {
			p.CompletionSignal = f.Signal().Handle()
			e.fence = f
		}
		if err := s.Submit(unsafe.Pointer(&p), BarrierHeader, e); err != nil {
			for _, d := range deps {
				s.fences.Release(d)
			}
			if !last && f != nil {
				s.fences.Release(f)
			}
			return err
		}
	}
	return nil
}
