package core

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// The legacy default stream (hipStreamLegacy, CUDA's legacy NULL stream):
// its work starts after all earlier work of every blocking stream of its
// device, and their later work waits for its earlier work. Non-blocking
// streams take no part.
//
// Until a device's legacy stream is made, a blocking stream pays one
// pointer and one atomic load per submission. Afterwards each submission
// of a blocking stream holds the device's legacy lock shared, from the
// dependencies it collects to the packet it publishes; each submission of
// the legacy stream holds it alone. So a blocking stream's packet either
// is published before the legacy stream collects its dependencies (and
// the legacy packet waits for it) or sees the legacy packet (and waits
// for it): never neither.

// legacyState is one device's legacy stream and the blocking streams it
// orders against.
type legacyState struct {
	active atomic.Bool // the legacy stream exists
	// mu: shared by blocking submissions, alone by the legacy stream's.
	// Taken under a stream's own lock, never the other way round.
	mu   sync.RWMutex
	tail *Fence // the legacy stream's last packet, retained; under mu alone
	n    uint64 // legacy submissions, under mu alone

	// streams: the blocking streams, held weakly (streamleak.go); set
	// guards it and is taken under mu.
	set     sync.Mutex
	streams map[*streamRef]struct{}
}

type legacyKey struct{}

// legacyOf is dev's legacy state, made on first use. Streams are made
// inside DeviceValue (the default stream): this takes no lock of dev's.
func legacyOf(dev *gpu.Device) *legacyState {
	if v, ok := LookupValue(dev, legacyKey{}); ok {
		return v.(*legacyState)
	}
	return LoadOrStoreValue(dev, legacyKey{}, &legacyState{streams: map[*streamRef]struct{}{}}).(*legacyState)
}

// How a submission holds its device's legacy lock (Stream.legHeld).
const (
	legNone uint8 = iota
	legShared
	legAlone
)

// joinBlocking makes s one of its device's blocking streams; from Init.
func (s *Stream) joinBlocking() {
	g := legacyOf(s.dev)
	s.leg, s.ref.leg = g, g
	g.set.Lock()
	g.streams[s.ref] = struct{}{}
	g.set.Unlock()
}

// leaveBlocking takes s out of its device's blocking streams and drops
// what it holds for the legacy stream.
func (s *Stream) leaveBlocking() {
	g := s.leg
	if g == nil || s.legacy {
		return
	}
	g.set.Lock()
	delete(g.streams, s.ref)
	g.set.Unlock()
	s.dropLegacyTail()
}

// dropLegacyTail drops the packet the legacy stream would have waited
// for: the stream leaves the blocking streams.
func (s *queueState) dropLegacyTail() {
	s.legTailMu.Lock()
	if s.legTail != nil {
		s.legTail.Release()
		s.legTail = nil
	}
	s.legTailMu.Unlock()
}

// MarkNonBlocking exempts s from the legacy stream's ordering
// (hipStreamNonBlocking); right after Init, before s is used.
func (s *Stream) MarkNonBlocking() {
	s.leaveBlocking()
	s.leg = nil
}

// MarkLegacy makes s its device's legacy stream, right after Init, before
// s is used: from now on the device's blocking streams order against it.
// Work they queued before counts too: each one's last packet is taken as
// the first the legacy stream waits for.
func (s *Stream) MarkLegacy() {
	s.leaveBlocking()
	s.legacy, s.isDefault = true, true
	g := s.leg
	g.active.Store(true)
	// From here on a submission that takes its stream's lock sees active
	// and records its packet; one that held the lock before has finished
	// when the lock is ours, and its packet is the stream's tail. A
	// stream collected meanwhile is its backstop's.
	g.set.Lock()
	ts := make([]*Stream, 0, len(g.streams))
	for r := range g.streams {
		if t := r.w.Value(); t != nil {
			ts = append(ts, t)
		}
	}
	g.set.Unlock()
	for _, t := range ts {
		t.mu.Lock()
		if t.tail != nil && !t.closed {
			t.legTailMu.Lock()
			if t.legTail == nil {
				t.tail.Retain()
				t.legTail = t.tail
			}
			t.legTailMu.Unlock()
		}
		t.mu.Unlock()
	}
}

// IsLegacy reports whether s is its device's legacy stream.
func (s *Stream) IsLegacy() bool { return s != nil && s.legacy }

// joinLegacy adds to deps what s's next packet waits for through the
// legacy stream, taking its device's legacy lock until s.unlock; s is
// locked and not capturing. Without a legacy stream it costs two loads.
func (s *Stream) joinLegacy(op string, deps []*Fence) ([]*Fence, error) {
	if g := s.leg; g == nil || !g.active.Load() {
		return deps, nil
	}
	return s.joinLegacySlow(op, deps)
}

func (s *Stream) joinLegacySlow(op string, deps []*Fence) ([]*Fence, error) {
	g := s.leg
	if !s.legacy {
		g.mu.RLock()
		s.legHeld = legShared
		if t := g.tail; t != nil && g.n != s.legSeen {
			s.legSeen = g.n
			if !t.Done() {
				t.Retain()
				s.noteWaited(t)
				deps = append(deps, t)
			}
		}
		return deps, nil
	}
	if err := g.refuseCaptures(op); err != nil {
		return deps, err
	}
	g.mu.Lock()
	s.legHeld = legAlone
	// A stream collected undestroyed counts too, until its backstop
	// releases it: its packets still run.
	g.set.Lock()
	for r := range g.streams {
		t := r.st
		t.legTailMu.Lock()
		f := t.legTail
		t.legTail = nil // the legacy packet stands for it from now on
		t.legTailMu.Unlock()
		if f == nil {
			continue
		}
		if f.Done() {
			f.Release()
			continue
		}
		s.noteWaited(f)
		deps = append(deps, f)
	}
	g.set.Unlock()
	return deps, nil
}

// refuseCaptures is the error of a legacy submission while a blocking
// stream of its device captures, which it would synchronize with
// (hipErrorStreamCaptureImplicit); the capture is invalidated, as in
// CUDA.
func (g *legacyState) refuseCaptures(op string) error {
	if capturing.Load() == 0 {
		return nil
	}
	g.set.Lock()
	defer g.set.Unlock()
	var err error
	for r := range g.streams {
		t := r.w.Value() // a capturing stream is held by its capture
		if t == nil {
			continue
		}
		c := t.captureOf()
		if c == nil {
			continue
		}
		e := gpu.Errorf(gpu.ErrStreamCaptureImplicit, op, "the legacy stream would synchronize with stream %d, which is capturing", t.q.ID())
		c.mu.Lock()
		c.fail(e)
		c.mu.Unlock()
		if err == nil {
			err = e
		}
	}
	return err
}

// recordLegacy records f, the packet s just published, for the legacy
// ordering; s holds the legacy lock.
func (s *Stream) recordLegacy(f *Fence) {
	g := s.leg
	f.Retain()
	if s.legHeld == legAlone {
		if g.tail != nil {
			g.tail.Release()
		}
		g.tail = f
		g.n++
		return
	}
	s.legTailMu.Lock()
	old := s.legTail
	s.legTail = f
	s.legTailMu.Unlock()
	if old != nil {
		old.Release()
	}
}

// unlock releases the stream, and the legacy lock if a submission took
// it.
func (s *Stream) unlock() {
	switch s.legHeld {
	case legShared:
		s.legHeld = legNone
		s.leg.mu.RUnlock()
	case legAlone:
		s.legHeld = legNone
		s.leg.mu.Unlock()
	}
	s.mu.Unlock()
}

// releaseLegacyTail drops the legacy stream's last packet (its destroy).
func (s *Stream) releaseLegacyTail() {
	g := s.leg
	if !s.legacy || g == nil {
		return
	}
	g.mu.Lock()
	if g.tail != nil {
		g.tail.Release()
		g.tail = nil
	}
	g.mu.Unlock()
}

// blockingTails appends to buf, retained, the unfinished packets of s's
// device's blocking streams that the legacy stream s has not waited for;
// nil for any other stream. The caller releases them.
func (s *Stream) blockingTails(buf []*Fence) []*Fence {
	g := s.leg
	if !s.legacy || g == nil {
		return buf
	}
	g.set.Lock()
	for r := range g.streams {
		t := r.st
		t.legTailMu.Lock()
		if f := t.legTail; f != nil && !f.Done() {
			f.Retain()
			buf = append(buf, f)
		}
		t.legTailMu.Unlock()
	}
	g.set.Unlock()
	return buf
}

// WaitBlocking waits, for the legacy stream s, for the work every blocking
// stream of its device queued before the call (hipStreamSynchronize(0)
// covers it); for any other stream it returns at once. Those streams'
// failures are theirs to report.
func (s *Stream) WaitBlocking(ctx context.Context, op string) error {
	if s == nil || !s.legacy {
		return nil
	}
	fs := s.blockingTails(nil)
	var err error
	for _, f := range fs {
		if err == nil {
			err = WaitContext(ctx, op, f, hsa.WaitActive)
		}
		f.Release()
	}
	return err
}

// BlockingDone reports, for the legacy stream s, whether every blocking
// stream of its device finished the work it queued (hipStreamQuery(0));
// true for any other stream.
func (s *Stream) BlockingDone() bool {
	if s == nil || !s.legacy {
		return true
	}
	var buf [8]*Fence
	fs := s.blockingTails(buf[:0])
	done := true
	for _, f := range fs {
		done = done && f.Query()
		f.Release()
	}
	return done
}
