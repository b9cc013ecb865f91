package collective

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Group collects operations on a set of communicators and queues them
// together when it ends (ncclGroupStart / ncclGroupEnd). Within a group a
// rank's operations run as one step: its sends and receives may pair with
// each other in any order, and one goroutine may drive several ranks of a
// communicator without waiting for one rank's operation to finish.
//
// Go has no thread-local group state, so a group names its communicators:
// while it is open, every operation issued on one of them, from any
// goroutine, joins it. Each rank's operations in a group go to one stream.
type Group struct {
	mu    sync.Mutex
	comms []*Comm
	ops   map[*Comm][]*call
	ended bool
}

// GroupStart opens a group over comms. A communicator can be in one open
// group at a time.
func GroupStart(comms ...*Comm) (*Group, error) {
	const op = "collective group start"
	if len(comms) == 0 {
		return nil, argErr(op, "no communicators")
	}
	seen := map[*Comm]bool{}
	for i, c := range comms {
		if c == nil {
			return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "communicator %d is nil", i)
		}
		if seen[c] {
			return nil, argErr(op, "%s is named twice", c)
		}
		seen[c] = true
	}
	g := &Group{comms: append([]*Comm(nil), comms...), ops: map[*Comm][]*call{}}
	for i, c := range comms {
		c.mu.Lock()
		err := c.usable(op)
		if err == nil && c.group != nil {
			err = gpu.Errorf(gpu.ErrIllegalState, op, "%s is already in an open group", c)
		}
		if err != nil {
			c.mu.Unlock()
			g.detach(comms[:i])
			return nil, err
		}
		c.group = g
		c.mu.Unlock()
	}
	return g, nil
}

func (g *Group) detach(comms []*Comm) {
	for _, c := range comms {
		c.mu.Lock()
		if c.group == g {
			c.group = nil
		}
		c.mu.Unlock()
	}
}

// add records k; the caller holds c.mu.
func (g *Group) add(c *Comm, k *call) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ended {
		return gpu.Errorf(gpu.ErrIllegalState, k.op, "the group has ended")
	}
	g.ops[c] = append(g.ops[c], k)
	return nil
}

// End closes the group and queues what it collected: each rank's
// operations as one piece of work on its stream. If any rank's operations
// are invalid together (two streams), none is queued.
func (g *Group) End() error {
	const op = "collective group end"
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil group")
	}
	// Every communicator stays locked until its operations are queued, so
	// an operation racing End lands after the group's. A communicator is
	// in one open group at a time and nothing else locks two, so this
	// cannot deadlock.
	for _, c := range g.comms {
		c.mu.Lock()
	}
	defer func() {
		for _, c := range g.comms {
			c.mu.Unlock()
		}
	}()
	g.mu.Lock()
	ended := g.ended
	g.ended = true
	ops := g.ops
	g.mu.Unlock()
	if ended {
		return gpu.Errorf(gpu.ErrIllegalState, op, "the group has already ended")
	}
	for _, c := range g.comms {
		if c.group == g {
			c.group = nil
		}
	}
	for _, c := range g.comms {
		var s *stream.Stream
		for _, k := range ops[c] {
			if s == nil {
				s = k.s
			} else if k.s != s {
				return argErr(op, "%s has operations on two streams in one group", c)
			}
		}
	}
	var first error
	for _, c := range g.comms {
		if len(ops[c]) == 0 {
			continue
		}
		err := c.usable(op)
		if err == nil {
			err = c.submit(op, ops[c])
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}
