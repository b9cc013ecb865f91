package graph

import (
	"slices"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// captureGraph is the graph a capture records into, as HIP has one from
// hipStreamBeginCapture on: the capture keeps its operations as indices
// (core.Capture), and they become the graph's nodes when someone looks
// (CaptureGraph, UpdateCaptureDependencies) or at EndCapture, always the
// same *Node for one operation.
type captureGraph struct {
	mu    sync.Mutex // held across the capture's and the graph's locks, which it precedes
	g     *Graph
	c     *core.Capture // nil until BeginCapture returns
	nodes []*Node       // the capture's index → node
	index map[*Node]int // node → the capture's index, for nodes that have one
	// pending: nodes added by hand to g that a dependency set named,
	// by the index Reserve gave them, until sync reaches it.
	pending map[int]*Node
}

// sync makes the capture's operations recorded since the last sync nodes
// of g; cg.mu is held.
func (cg *captureGraph) sync(c *core.Capture) {
	cg.add(len(cg.nodes), c.Nodes(len(cg.nodes)))
}

// add makes ns, the capture's nodes from index base on, nodes of g; cg.mu
// is held.
func (cg *captureGraph) add(base int, ns []core.CapturedNode) {
	if len(ns) == 0 {
		return
	}
	g := cg.g
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, c := range ns {
		if base+i < len(cg.nodes) {
			continue
		}
		if c.External {
			n := cg.pending[base+i]
			delete(cg.pending, base+i)
			cg.nodes = append(cg.nodes, n) // in g already
			continue
		}
		n := &Node{g: g, kind: kindCaptured, captured: c}
		switch {
		case c.Alloc != nil:
			n.kind, n.mem = kindMemAlloc, c.Alloc
		case c.Free != nil:
			n.kind, n.mem = kindMemFree, c.Free
		}
		for _, d := range c.Deps {
			dn := cg.nodes[d]
			// A node DestroyNode took out no longer orders anything.
			if dn == nil || dn.removed || slices.Contains(n.deps, dn) {
				continue
			}
			n.deps = append(n.deps, dn)
		}
		cg.index[n] = len(cg.nodes)
		cg.nodes = append(cg.nodes, n)
		g.nodes = append(g.nodes, n)
	}
}

// live reports whether the capture still records into g.
func (cg *captureGraph) live() bool {
	cg.mu.Lock()
	defer cg.mu.Unlock()
	return cg.c == nil || !cg.c.Ended()
}

// captureOf is the graph s's capture records into, nil when s does not
// capture.
func captureOf(s *stream.Stream) (*core.Capture, *captureGraph) {
	c := (*core.Stream)(s).Capture()
	if c == nil {
		return nil, nil
	}
	cg, _ := c.Owner().(*captureGraph)
	return c, cg
}

// checkCaptureStream refuses a nil or destroyed stream.
func checkCaptureStream(op string, s *stream.Stream) error {
	if err := (*core.Stream)(s).Check(op); err != nil {
		return err
	}
	if (*core.Stream)(s).Destroyed() {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "the stream was destroyed")
	}
	return nil
}

// CaptureGraph is the rest of hipStreamGetCaptureInfo_v2: the graph s's
// capture records into and the nodes the next operation captured on s
// will depend on (nil and none when s does not capture). Nodes may be
// added to the graph while the capture goes on, and named in
// UpdateCaptureDependencies; the graph is the one EndCapture returns, and
// it cannot be destroyed before. A nil or destroyed stream is
// ErrInvalidHandle.
func CaptureGraph(s *stream.Stream) (*Graph, []*Node, error) {
	const op = "stream get capture info v2"
	if err := checkCaptureStream(op, s); err != nil {
		return nil, nil, err
	}
	c, cg := captureOf(s)
	if cg == nil {
		return nil, nil, nil
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	idx, _, err := c.Deps(op, (*core.Stream)(s))
	if err != nil {
		return nil, nil, nil // the capture ended meanwhile
	}
	cg.sync(c)
	cg.g.mu.Lock()
	defer cg.g.mu.Unlock()
	var deps []*Node
	for _, i := range idx {
		if n := cg.nodes[i]; !n.removed {
			deps = append(deps, n)
		}
	}
	return cg.g, deps, nil
}

// CaptureDependencyFlags are hipStreamUpdateCaptureDependenciesFlags.
type CaptureDependencyFlags uint32

// The flags of UpdateCaptureDependencies, with HIP's values.
const (
	// AddCaptureDependencies adds the nodes to the set.
	AddCaptureDependencies CaptureDependencyFlags = 0
	// SetCaptureDependencies replaces the set with the nodes.
	SetCaptureDependencies CaptureDependencyFlags = 1
)

// UpdateCaptureDependencies changes the nodes the next operation captured
// on s will depend on (hipStreamUpdateCaptureDependencies): adds deps to
// them, or replaces them with deps. deps must be nodes of the capture's
// graph (CaptureGraph), captured or added by hand. A stream that does not
// capture is ErrIllegalState; other flags, and a nil node or one of
// another graph, ErrInvalidValue; a refused call changes nothing.
func UpdateCaptureDependencies(s *stream.Stream, deps []*Node, flags CaptureDependencyFlags) error {
	const op = "stream update capture dependencies"
	if err := checkCaptureStream(op, s); err != nil {
		return err
	}
	c, cg := captureOf(s)
	if cg == nil {
		return gpu.Errorf(gpu.ErrIllegalState, op, "the stream is not capturing")
	}
	if flags != AddCaptureDependencies && flags != SetCaptureDependencies {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "flags %d: HIP takes add (0) or set (1)", uint32(flags))
	}
	cg.mu.Lock()
	defer cg.mu.Unlock()
	cg.g.mu.Lock()
	for i, n := range deps {
		if n == nil {
			cg.g.mu.Unlock()
			return gpu.Errorf(gpu.ErrInvalidValue, op, "dependency %d is nil", i)
		}
		if n.g != cg.g || n.removed || n.inner {
			cg.g.mu.Unlock()
			return gpu.Errorf(gpu.ErrInvalidValue, op, "dependency %d (%s) is not a node of the capture's graph", i, n.Kind())
		}
	}
	cg.g.mu.Unlock()
	cg.sync(c)
	idx := make([]int, len(deps))
	for i, n := range deps {
		j, ok := cg.index[n]
		if !ok {
			var err error
			if j, err = c.Reserve(op); err != nil {
				return err
			}
			cg.index[n], cg.pending[j] = j, n
		}
		idx[i] = j
	}
	return c.UpdateDeps(op, (*core.Stream)(s), idx, flags == SetCaptureDependencies)
}
