package core

import (
	"context"
	"fmt"
	"runtime"
	"weak"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// The backstop of a stream dropped undestroyed. Its device's stream set
// and legacy set hold a streamRef: the Stream weakly, its queue state
// strongly. So the Stream can become unreachable while its packets
// still run; the walkers of the sets skip it from then on, apart from
// what only needs its queue state (its last packet, for Device.Synchronize
// and the legacy stream), and its cleanup waits for its work and releases
// the state as Destroy does.

// streamRef is a stream as its device's sets hold it. It is also what
// the stream's backstop holds: nothing in it points back to the Stream.
type streamRef struct {
	w   weak.Pointer[Stream]
	st  *queueState
	dev *gpu.Device
	gen uint64       // dev's reset count when the stream was made
	leg *legacyState // the blocking streams it joined; nil for none
	key any          // the Stream's key in the live registry (a weak pointer)
}

// track arms s's backstop and adds it to its device's sets and the live
// registry; from Init.
func (s *Stream) track() {
	s.ref = &streamRef{w: weak.Make(s), st: s.queueState, dev: s.dev, gen: s.gen, key: live.Key(s)}
	s.joinBlocking()
	live.AddWeak(Scope(s.dev), s)
	Register(s.dev, s.ref)
	s.backstop = runtime.AddCleanup(s, releaseStream, s.ref)
}

// Synchronize is Device.Synchronize's wait for the stream.
func (r *streamRef) Synchronize() error { return r.SynchronizeContext(context.Background()) }

// SynchronizeContext waits for the stream, or for the work a stream
// collected undestroyed still runs, whose failure nobody can be told of.
func (r *streamRef) SynchronizeContext(ctx context.Context) error {
	if s := r.w.Value(); s != nil {
		return s.SynchronizeContext(ctx)
	}
	t := r.st.lastPacket()
	if t == nil {
		return nil
	}
	defer t.Release()
	return WaitContext(ctx, "stream synchronize", t, hsa.WaitActive)
}

// Destroyed reports whether the stream was destroyed; a stream collected
// is its backstop's.
func (r *streamRef) Destroyed() bool {
	if s := r.w.Value(); s != nil {
		return s.Destroyed()
	}
	return true
}

// ReleaseAfterShutdown is the queue state's.
func (r *streamRef) ReleaseAfterShutdown() { r.st.releaseAfterShutdown() }

// LiveKey is the Stream's key in the live registry, which track added
// it under.
func (r *streamRef) LiveKey() any { return r.key }

// releaseStream is the backstop of a stream that became unreachable
// undestroyed: nothing can submit to it any more, so its tail is its
// last packet. It is released once that completes, on a goroutine of its
// own if it has not.
func releaseStream(r *streamRef) {
	t := r.st.lastPacket()
	if t == nil || t.Done() {
		r.release(t)
		return
	}
	goBackstop(func() { r.release(t) })
}

// lastPacket is the stream's tail, retained for the caller; nil for none.
func (s *queueState) lastPacket() *Fence {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tail != nil {
		s.tail.Retain()
	}
	return s.tail
}

// release waits for t, the stream's last packet, and lets go of what the
// stream holds as Destroy does: its packets' references, its kernarg
// areas, its printf buffer (printing what is left), its queue, its
// place in its device's sets.
func (r *streamRef) release(t *Fence) {
	if t != nil {
		_ = t.Wait(0)
		t.Release()
	}
	st := r.st
	st.mu.Lock()
	st.closed = true
	st.reap(true)
	if st.tail != nil {
		st.fences.Release(st.tail)
		st.tail = nil
	}
	st.fences.Flush()
	st.freePrintf(Valid(r.dev, r.gen) == nil)
	st.freeAreas()
	st.mu.Unlock()
	if g := r.leg; g != nil {
		g.set.Lock()
		delete(g.streams, r)
		g.set.Unlock()
	}
	st.dropLegacyTail()
	if !st.q.Destroyed() { // Shutdown or a reset destroyed it already
		_ = st.q.Destroy()
	}
	live.Collected(r.key, fmt.Sprintf("stream (queue %d)", st.q.ID()))
	Unregister(r.dev, r)
}
