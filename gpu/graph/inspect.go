package graph

import "github.com/hipgo/hipgo/gpu"

// Nodes are the graph's nodes in the order they were added
// (hipGraphGetNodes); none for a nil or destroyed graph.
func (g *Graph) Nodes() []*Node {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*Node(nil), g.nodes...)
}

// RootNodes are the nodes without dependencies (hipGraphGetRootNodes).
func (g *Graph) RootNodes() []*Node {
	var roots []*Node
	for _, n := range g.Nodes() {
		if len(n.deps) == 0 {
			roots = append(roots, n)
		}
	}
	return roots
}

// Edges are the graph's dependencies as pairs: to[i] runs after from[i]
// (hipGraphGetEdges).
func (g *Graph) Edges() (from, to []*Node) {
	for _, n := range g.Nodes() {
		for _, d := range n.deps {
			from, to = append(from, d), append(to, n)
		}
	}
	return from, to
}

// Dependents are the nodes that run after n (hipGraphNodeGetDependentNodes);
// none for a nil node.
func (n *Node) Dependents() []*Node {
	if n == nil {
		return nil
	}
	var out []*Node
	for _, m := range n.g.Nodes() {
		for _, d := range m.deps {
			if d == n {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// Clone is a copy of the graph, its nodes and their dependencies
// (hipGraphClone); changes to one do not reach the other. A graph with
// memory allocation or free nodes does not clone (ErrNotSupported), as
// CUDA refuses it: its memory belongs to one graph.
func (g *Graph) Clone() (*Graph, error) {
	const op = "graph clone"
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.destroyed {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	c := &Graph{nodes: make([]*Node, len(g.nodes))}
	of := make(map[*Node]*Node, len(g.nodes))
	for i, n := range g.nodes {
		if n.kind == kindMemAlloc || n.kind == kindMemFree {
			return nil, gpu.Errorf(gpu.ErrNotSupported, op, "the graph has memory %s nodes", n.Kind())
		}
		m := *n
		m.g = c
		m.deps = make([]*Node, len(n.deps))
		for j, d := range n.deps {
			m.deps[j] = of[d] // dependencies come before their dependents
		}
		if n.kind == kindKernel && n.kernel.Typed == nil {
			m.kernel.Args = append([]any(nil), n.kernel.Args...)
		}
		c.nodes[i] = &m
		of[n] = &m
	}
	return c, nil
}
