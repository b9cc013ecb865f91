package graph

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Event record and wait nodes. A launch runs them as the stream's own
// Record and WaitEvent at their place in the graph's order: the packets
// before an event node are queued, then the record or wait, then the
// packets after it, so the mechanism is the stream's on every driver.

// checkNodeEvent refuses an event a node cannot hold (HIP's code for it
// is hipErrorInvalidValue).
func checkNodeEvent(op string, ev *stream.Event) error {
	if ev == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil event")
	}
	if err := ev.Valid(); err != nil {
		return &gpu.Error{Code: gpu.ErrInvalidValue, Op: op, Msg: "invalid event", Err: err}
	}
	return nil
}

// AddEventRecord adds a record of ev after deps
// (hipGraphAddEventRecordNode): each launch records ev once the nodes
// before it in the graph's order are done, as Stream.Record does; ev may
// be of another device than the graph's launches, as in HIP. A nil, zero
// or destroyed event is ErrInvalidValue.
func (g *Graph) AddEventRecord(ev *stream.Event, deps ...*Node) (*Node, error) {
	const op = "graph add event record node"
	if err := checkNodeEvent(op, ev); err != nil {
		return nil, err
	}
	return g.add(op, &Node{kind: kindEventRecord, event: ev}, deps)
}

// AddEventWait adds a wait for ev after deps (hipGraphAddEventWaitNode):
// the nodes after it in the graph's order wait for ev's record as it
// stands when the launch reaches the node, as Stream.WaitEvent does. A
// nil, zero or destroyed event is ErrInvalidValue.
func (g *Graph) AddEventWait(ev *stream.Event, deps ...*Node) (*Node, error) {
	const op = "graph add event wait node"
	if err := checkNodeEvent(op, ev); err != nil {
		return nil, err
	}
	return g.add(op, &Node{kind: kindEventWait, event: ev}, deps)
}

// eventOf is n's event, read under its graph's lock.
func (n *Node) eventOf() *stream.Event {
	if n.g == nil {
		return n.event
	}
	n.g.mu.Lock()
	defer n.g.mu.Unlock()
	return n.event
}

// nodeEvent is the event of n, which must be a node of kind k.
func (n *Node) nodeEvent(op string, k nodeKind) (*stream.Event, error) {
	if n == nil || n.kind != k {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "not an %s node", kindNames[k])
	}
	return n.eventOf(), nil
}

// setNodeEvent sets the event of n, which must be a node of kind k.
func (n *Node) setNodeEvent(op string, k nodeKind, ev *stream.Event) error {
	if n == nil || n.kind != k {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "not an %s node", kindNames[k])
	}
	if err := checkNodeEvent(op, ev); err != nil {
		return err
	}
	n.g.mu.Lock()
	defer n.g.mu.Unlock()
	n.event = ev
	return nil
}

// RecordedEvent is the event record node n records
// (hipGraphEventRecordNodeGetEvent); any other node is ErrInvalidValue.
func (n *Node) RecordedEvent() (*stream.Event, error) {
	return n.nodeEvent("graph event record node get event", kindEventRecord)
}

// SetRecordedEvent makes event record node n record ev
// (hipGraphEventRecordNodeSetEvent). Executable graphs made before keep
// their event.
func (n *Node) SetRecordedEvent(ev *stream.Event) error {
	return n.setNodeEvent("graph event record node set event", kindEventRecord, ev)
}

// WaitedEvent is the event event wait node n waits for
// (hipGraphEventWaitNodeGetEvent); any other node is ErrInvalidValue.
func (n *Node) WaitedEvent() (*stream.Event, error) {
	return n.nodeEvent("graph event wait node get event", kindEventWait)
}

// SetWaitedEvent makes event wait node n wait for ev
// (hipGraphEventWaitNodeSetEvent). Executable graphs made before keep
// their event.
func (n *Node) SetWaitedEvent(ev *stream.Event) error {
	return n.setNodeEvent("graph event wait node set event", kindEventWait, ev)
}

// eventOp is an event node of an executable graph.
type eventOp struct {
	at   int // the packets that run before it
	wait bool
	ev   *stream.Event
	node *Node // the node of the graph it was made from
}

// lowerEvent checks event node n for an executable graph. The event may
// be of any device, as in HIP.
func lowerEvent(n *Node) (*stream.Event, error) {
	op := n.Kind() + " node"
	ev := n.eventOf()
	if err := checkNodeEvent(op, ev); err != nil {
		return nil, err
	}
	return ev, nil
}

// SetRecordedEvent makes event record node n of the executable graph
// record ev (hipGraphExecEventRecordNodeSetEvent); launches already
// queued keep the old event. The graph n belongs to is unchanged.
func (e *Exec) SetRecordedEvent(n *Node, ev *stream.Event) error {
	return e.setEvent("graph exec event record node set event", kindEventRecord, n, ev)
}

// SetWaitedEvent makes event wait node n of the executable graph wait
// for ev (hipGraphExecEventWaitNodeSetEvent); launches already queued
// keep the old event. The graph n belongs to is unchanged.
func (e *Exec) SetWaitedEvent(n *Node, ev *stream.Event) error {
	return e.setEvent("graph exec event wait node set event", kindEventWait, n, ev)
}

func (e *Exec) setEvent(op string, k nodeKind, n *Node, ev *stream.Event) error {
	if err := e.check(op); err != nil {
		return err
	}
	if n == nil || n.kind != k {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "not an %s node", kindNames[k])
	}
	if err := checkNodeEvent(op, ev); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.destroyed {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph was destroyed")
	}
	for i := range e.events {
		if e.events[i].node == n {
			e.events[i].ev = ev
			return nil
		}
	}
	return gpu.Errorf(gpu.ErrInvalidValue, op, "not an %s node of this executable graph", kindNames[k])
}

// launchEvents queues e's packets on s with its event records and waits
// in their places; e.mu is read-held. The events are checked first, so
// that a destroyed one fails the launch before any of it is queued.
func (e *Exec) launchEvents(op string, s *stream.Stream) error {
	for i := range e.events {
		if err := e.events[i].ev.Valid(); err != nil {
			return errs.Wrap(op, err)
		}
	}
	cs := (*core.Stream)(s)
	start := 0
	for i := range e.events {
		x := &e.events[i]
		if err := cs.Replay(op, e.pkts[start:x.at], e.uses); err != nil {
			return err
		}
		var err error
		if x.wait {
			err = s.WaitEvent(x.ev)
		} else {
			err = stream.GraphRecord(s, x.ev)
		}
		if err != nil {
			return errs.Wrap(op, err)
		}
		start = x.at
	}
	return cs.Replay(op, e.pkts[start:], e.uses)
}
