package core

import (
	"slices"

	"github.com/hipgo/hipgo/gpu"
)

// A capture's dependency set (hipStreamGetCaptureInfo_v2's dependencies,
// hipStreamUpdateCaptureDependencies): the nodes each stream's next
// captured operation runs after, as indices into the capture's nodes.
// Nodes the caller adds to the capture's graph by hand take an index of
// their own (Reserve) when they enter a dependency set.

// Capture is the capture s takes part in, or nil.
func (s *Stream) Capture() *Capture { return s.captureOf() }

// Owner is what BeginCapture was given to keep with the capture.
func (c *Capture) Owner() any { return c.owner }

// Ended reports whether the capture ended (EndCapture, or the
// destruction of its stream).
func (c *Capture) Ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// errEnded is the error of a dependency call on a capture that ended.
func errEnded(op string) error {
	return gpu.Errorf(gpu.ErrIllegalState, op, "the stream is not capturing")
}

// Deps are the nodes s's next captured operation runs after, and how many
// nodes the capture has. A capture that ended is hipErrorIllegalState.
func (c *Capture) Deps(op string, s *Stream) ([]int, int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return nil, 0, errEnded(op)
	}
	return slices.Clone(c.front[s]), len(c.nodes), nil
}

// Nodes are a copy of the capture's nodes from index from on.
func (c *Capture) Nodes(from int) []CapturedNode {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from >= len(c.nodes) {
		return nil
	}
	return slices.Clone(c.nodes[from:])
}

// Reserve gives a node the caller added to the capture's graph an index,
// so that a dependency set may name it; its place holds an External node.
func (c *Capture) Reserve(op string) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return 0, errEnded(op)
	}
	c.nodes = append(c.nodes, CapturedNode{External: true, Packet: GraphPacket{Name: "external node"}})
	return len(c.nodes) - 1, nil
}

// UpdateDeps adds deps to s's dependency set, or replaces the set with
// them where replace is set (hipStreamAddCaptureDependencies,
// hipStreamSetCaptureDependencies). An index the set holds already is
// not added twice.
func (c *Capture) UpdateDeps(op string, s *Stream, deps []int, replace bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return errEnded(op)
	}
	for _, d := range deps {
		if d < 0 || d >= len(c.nodes) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "node %d is not a node of the capture", d)
		}
	}
	front := c.front[s]
	if replace {
		front = nil
	}
	front = slices.Clone(front)
	for _, d := range deps {
		if !slices.Contains(front, d) {
			front = append(front, d)
		}
	}
	c.front[s] = front
	return nil
}
