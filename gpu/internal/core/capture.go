package core

import (
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
)

// Stream capture (hipStreamBeginCapture): while a stream captures, its
// operations become nodes of a graph instead of packets. The submit path
// pays one atomic load when no stream captures anywhere.

var (
	capturing atomic.Int32 // streams capturing now
	captures  sync.Map     // *Stream → *Capture
	captured  sync.Map     // *Fence of an event recorded in a capture → capturedEvent
)

// CapturedNode is one operation recorded by a capture: its packet, the
// buffers it uses, and the nodes it runs after.
type CapturedNode struct {
	Packet GraphPacket
	Uses   []MemUse
	Deps   []int
	// Alloc and Free make the node an alloc or free node of graph
	// memory (a captured NewAsync or FreeAsync), with no packet. The
	// capture holds Alloc's memory until the graph takes it.
	Alloc, Free *GraphAlloc
	// External stands for a node the caller added to the capture's
	// graph itself (UpdateDeps): it has no operation here.
	External bool
}

// Capture is one capture sequence: the origin stream, the streams that
// joined it by waiting for its events, and what they recorded.
type Capture struct {
	mu      sync.Mutex
	origin  *Stream
	nodes   []CapturedNode
	front   map[*Stream][]int // what each stream's next node runs after
	joined  map[*Stream]bool  // a stream's last node is waited for by the origin
	streams []*Stream
	events  []*Fence
	err     error // the failure that invalidated the capture
	ended   bool
	id      uint64 // unique in the process (hipStreamGetCaptureInfo)
	mode    CaptureMode
	tid     int // the OS thread that began it (capturemode.go)
	owner   any // what the caller keeps with the capture (BeginCapture)
}

// captureIDs numbers captures.
var captureIDs atomic.Uint64

// CaptureInfo is s's capture, if any (hipStreamGetCaptureInfo): whether it
// is active, whether a failure invalidated it, and its id.
func (s *Stream) CaptureInfo() (active, invalidated bool, id uint64) {
	c := s.captureOf()
	if c == nil {
		return false, false, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return true, c.err != nil, c.id
}

type capturedEvent struct {
	c     *Capture
	nodes []int
}

// captureOf is the capture s takes part in, or nil.
func (s *Stream) captureOf() *Capture {
	if capturing.Load() == 0 {
		return nil
	}
	if v, ok := captures.Load(s); ok {
		return v.(*Capture)
	}
	return nil
}

// IsCapturing reports whether s takes part in a capture.
func (s *Stream) IsCapturing() bool { return s.captureOf() != nil }

// BeginCapture makes s record its operations into a new capture begun in
// mode; owner is kept with it (Capture.Owner).
func (s *Stream) BeginCapture(op string, mode CaptureMode, owner any) error {
	if !mode.Valid() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "capture mode %d", int32(mode))
	}
	if err := s.Lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if s.legacy {
		return gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "the legacy stream cannot capture")
	}
	c := &Capture{origin: s, front: map[*Stream][]int{}, joined: map[*Stream]bool{}, id: captureIDs.Add(1), mode: mode, tid: syscall.Gettid(), owner: owner}
	if _, busy := captures.LoadOrStore(s, c); busy {
		return gpu.Errorf(gpu.ErrIllegalState, op, "the stream is already capturing")
	}
	c.streams = append(c.streams, s)
	capturing.Add(1)
	return nil
}

// EndCapture ends the capture s began and returns its nodes and its
// owner. A capture a failure invalidated is
// hipErrorStreamCaptureInvalidated; one whose forked streams were not
// joined back is hipErrorStreamCaptureUnjoined. Either way every stream of
// the capture stops capturing.
func (s *Stream) EndCapture(op string) ([]CapturedNode, any, error) {
	nodes, c, err := s.endCapture(op)
	if c == nil {
		return nodes, nil, err
	}
	return nodes, c.owner, err
}

func (s *Stream) endCapture(op string) ([]CapturedNode, *Capture, error) {
	if err := s.Check(op); err != nil {
		return nil, nil, err
	}
	// The stream's lock first, as its submissions take it: an operation in
	// progress on s is recorded before the capture ends.
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.captureOf()
	if c == nil {
		if s.captureDestroyed.Load() {
			return nil, nil, gpu.Errorf(gpu.ErrStreamCaptureInvalidated, op, "the capture ended because the stream was destroyed")
		}
		return nil, nil, gpu.Errorf(gpu.ErrIllegalState, op, "the stream is not capturing")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.origin != s {
		return nil, nil, gpu.Errorf(gpu.ErrStreamCaptureUnmatched, op, "the capture was begun on another stream")
	}
	c.stop()
	if c.err != nil {
		c.dropAllocs()
		return nil, c, &gpu.Error{Code: gpu.ErrStreamCaptureInvalidated, Op: op, Msg: "the capture was invalidated", Err: c.err}
	}
	for _, t := range c.streams {
		if t != s && !c.joined[t] {
			c.dropAllocs()
			return nil, c, gpu.Errorf(gpu.ErrStreamCaptureUnjoined, op, "work forked onto stream %d was not joined back into the capturing stream", t.q.ID())
		}
	}
	return c.nodes, c, nil
}

// stop takes every stream out of the capture and forgets its events; c.mu
// is held.
func (c *Capture) stop() {
	c.ended = true
	for _, t := range c.streams {
		if captures.CompareAndDelete(t, c) {
			capturing.Add(-1)
		}
	}
	for _, f := range c.events {
		captured.Delete(f)
		f.Cancel() // complete: a wait for the event outside the capture has nothing to wait for
		f.Release()
	}
	c.events = nil
}

// abortCapture ends any capture s takes part in (the stream is being
// destroyed) and returns the error Destroy reports for it, nil when s did
// not capture. A capture begun on s ends; one s joined is invalidated.
// EndCapture on s then says the stream was destroyed.
func (s *Stream) abortCapture() error {
	c := s.captureOf()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail(gpu.Errorf(gpu.ErrStreamCaptureInvalidated, "stream destroy", "a stream of the capture was destroyed"))
	if c.origin == s {
		c.stop()
		c.dropAllocs()
		s.captureDestroyed.Store(true)
		return gpu.Errorf(gpu.ErrStreamCaptureInvalidated, "stream destroy", "the stream was destroyed while capturing: its capture ended")
	}
	if captures.CompareAndDelete(s, c) {
		capturing.Add(-1)
	}
	return gpu.Errorf(gpu.ErrStreamCaptureInvalidated, "stream destroy", "the stream was destroyed while taking part in a capture: the capture was invalidated")
}

// fail invalidates the capture with err unless it already failed; c.mu
// is held.
func (c *Capture) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// Refuse is the error of an operation a capturing stream cannot record
// (hipErrorStreamCaptureUnsupported); it invalidates the capture. It is
// nil when s does not capture.
func (s *Stream) Refuse(op string) error {
	c := s.captureOf()
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	err := gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "not permitted while the stream is capturing")
	c.fail(err)
	return err
}

// RefuseCaptured is the error of a host query or wait on f while f is an
// event recorded in a capture still going (hipErrorCapturedEvent): its
// fence completes only when the capture ends, so the wait could block the
// goroutine that must end it. As in HIP, it invalidates the capture. It
// is nil for any other fence.
func RefuseCaptured(op string, f *Fence) error {
	if capturing.Load() == 0 {
		return nil
	}
	v, ok := captured.Load(f)
	if !ok {
		return nil
	}
	c := v.(capturedEvent).c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil
	}
	err := gpu.Errorf(gpu.ErrCapturedEvent, op, "the event was recorded in a capture that has not ended")
	c.fail(err)
	return err
}

// add records a node made on stream s after s's front; c.mu is held.
func (c *Capture) add(s *Stream, n CapturedNode) error {
	if c.ended {
		// A stream joined by the capture submitted as it ended.
		return gpu.Errorf(gpu.ErrStreamCaptureInvalidated, n.Packet.Name, "the capture the stream took part in ended meanwhile")
	}
	if c.err != nil {
		return gpu.Errorf(gpu.ErrStreamCaptureInvalidated, n.Packet.Name, "the capture was invalidated by an earlier failure: %v", c.err)
	}
	n.Deps = append(n.Deps, c.front[s]...)
	c.nodes = append(c.nodes, n)
	c.front[s] = []int{len(c.nodes) - 1}
	if s != c.origin {
		c.joined[s] = false
	}
	return nil
}

// captureLaunch records a kernel dispatch being committed; the launch's
// fence is dropped, as it will never be submitted.
func (l *Launch) captureLaunch(c *Capture, d *Dispatch) error {
	s := l.s
	ka := make([]byte, d.KernargSize)
	copy(ka, l.kernargImage(d.KernargSize))
	l.dropArea()
	name := l.fence.op
	l.fence.Cancel()
	s.fences.Release(l.fence)
	l.fence = nil
	uses := append([]MemUse(nil), l.uses...)
	l.uses = l.uses[:0]
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.add(s, CapturedNode{Packet: GraphPacket{Dispatch: *d, Kernarg: ka, Name: name}, Uses: uses})
}

// captureAgent records a copy, fill or host callback.
func (s *Stream) captureAgent(c *Capture, op string, call aql.AgentCall, pin uint64, uses []MemUse) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := GraphPacket{Agent: true, Call: call, Name: op}
	var err error
	switch {
	case pin != 0:
		hostref.UnpinHost(pin)
		err = gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "a copy from or to Go memory cannot be captured: the slice is pinned only for one copy")
	case call.Func == aql.AgentCallback:
		id := aql.DecodeCallback(call.Arg).ID
		f, ok := hostref.TakeCallback(id)
		hostref.DiscardCallback(id, nil) // a failure hook: a graph's callback only runs
		if !ok {
			err = gpu.Errorf(gpu.ErrInvalidValue, op, "no callback %d", id)
		}
		p.Host, p.Call = f, aql.CallbackWork{}.Call() // registered again at each replay
	case call.Func == aql.AgentNative:
		hostref.TakeNative(aql.DecodeNative(call.Arg).ID)
		err = gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "a native call cannot be captured")
	}
	if err != nil {
		c.fail(err)
		return err
	}
	var us []MemUse
	for _, u := range uses {
		if u.M != nil {
			if u.M.Freed() {
				err := gpu.Errorf(gpu.ErrInvalidValue, op, "%s was freed", u.M)
				c.fail(err)
				return err
			}
			us = append(us, u)
		}
	}
	return c.add(s, CapturedNode{Packet: p, Uses: us})
}

// captureRecord records an event: its fence stands for the stream's
// front in the capture. It completes when the capture ends; a host query
// or wait for the event meanwhile is refused (RefuseCaptured).
func (s *Stream) captureRecord(c *Capture, op string) (*Fence, error) {
	f, err := s.newFence(op)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil || c.ended {
		f.Cancel()
		s.fences.Release(f)
		return nil, gpu.Errorf(gpu.ErrStreamCaptureInvalidated, op, "the capture ended or was invalidated: %v", c.err)
	}
	f.Retain() // the capture's, so the fence is not reused while it stands for nodes
	c.events = append(c.events, f)
	captured.Store(f, capturedEvent{c: c, nodes: append([]int(nil), c.front[s]...)})
	return f, nil
}

// captureWait makes s wait for deps inside a capture: an event recorded in
// a capture forks s into it (s joins the capture) or joins s's work back.
// It reports whether it handled the wait; deps' references are taken over
// when it did.
func (s *Stream) captureWait(op string, deps []*Fence) (bool, error) {
	if capturing.Load() == 0 {
		return false, nil // no captured event exists
	}
	var c *Capture
	for _, d := range deps {
		if v, ok := captured.Load(d); ok {
			c = v.(capturedEvent).c
			break
		}
	}
	own := s.captureOf()
	if c == nil && own == nil {
		return false, nil
	}
	defer func() {
		for _, d := range deps {
			d.Release()
		}
	}()
	if c == nil {
		c = own
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if own != nil && own != c {
		err := gpu.Errorf(gpu.ErrStreamCaptureMerge, op, "the event belongs to another capture")
		c.fail(err)
		return true, err
	}
	if c.err != nil {
		return true, gpu.Errorf(gpu.ErrStreamCaptureInvalidated, op, "the capture was invalidated by an earlier failure: %v", c.err)
	}
	for _, d := range deps {
		v, ok := captured.Load(d)
		if !ok {
			if d.Done() {
				continue // finished before the capture: nothing to wait for
			}
			err := gpu.Errorf(gpu.ErrStreamCaptureIsolation, op, "the event was recorded outside the capture and has not completed")
			c.fail(err)
			return true, err
		}
		ev := v.(capturedEvent)
		c.front[s] = append(c.front[s], ev.nodes...)
		if s == c.origin {
			// A stream is joined back when the origin now waits for every
			// node its next operation would follow (one, or several
			// after a wait for two events or UpdateDeps).
			for t, front := range c.front {
				if t != s && len(front) > 0 && subset(front, ev.nodes) {
					c.joined[t] = true
				}
			}
		}
	}
	if own == nil {
		captures.Store(s, c)
		capturing.Add(1)
		c.streams = append(c.streams, s)
		c.joined[s] = true // nothing forked onto it yet
	}
	return true, nil
}

// subset reports whether every index of a is in b.
func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// captureUse records a buffer a captured dispatch uses; the buffer's
// dependency state is left alone until the graph is launched.
func (l *Launch) captureUse(m *Mem, acc Access) error {
	if m.Freed() {
		return gpu.Errorf(gpu.ErrInvalidValue, l.fence.op, "%s was freed", m)
	}
	l.uses = append(l.uses, MemUse{M: m, Acc: acc})
	return nil
}
