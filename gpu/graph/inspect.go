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
	var out []*Node
	for _, n := range g.nodes {
		if !n.inner {
			out = append(out, n)
		}
	}
	return out
}

// RootNodes are the nodes without dependencies (hipGraphGetRootNodes).
func (g *Graph) RootNodes() []*Node {
	var roots []*Node
	for _, n := range g.Nodes() {
		if len(n.Dependencies()) == 0 {
			roots = append(roots, n)
		}
	}
	return roots
}

// Edges are the graph's dependencies as pairs: to[i] runs after from[i]
// (hipGraphGetEdges).
func (g *Graph) Edges() (from, to []*Node) {
	for _, n := range g.Nodes() {
		for _, d := range n.Dependencies() {
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
		for _, d := range m.Dependencies() {
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
		if n.childDeps != nil {
			m.childDeps = make([]*Node, len(n.childDeps))
			for j, d := range n.childDeps {
				m.childDeps[j] = of[d]
			}
		}
		if n.entry != nil {
			m.entry = make([]*Node, len(n.entry))
			for j, d := range n.entry {
				m.entry[j] = of[d] // the child's nodes come before its end
			}
		}
		if n.kind == kindKernel && n.kernel.Typed == nil {
			m.kernel.Args = append([]any(nil), n.kernel.Args...)
		}
		c.nodes[i] = &m
		of[n] = &m
	}
	return c, nil
}

// AddChildGraph adds child's work as one node after deps
// (hipGraphAddChildGraphNode): a copy of child, taken now, whose nodes run
// after deps and before the nodes that depend on the returned node. The
// copy's nodes are not listed among the graph's (Nodes, Len). A child
// with memory nodes is refused (ErrNotSupported), as CUDA refuses it.
func (g *Graph) AddChildGraph(child *Graph, deps ...*Node) (*Node, error) {
	const op = "graph add child graph node"
	if child == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil child graph")
	}
	if child == g {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "a graph cannot be its own child")
	}
	c, err := child.Clone()
	if err != nil {
		return nil, err
	}
	// The copy's nodes join g: each root after deps, the child node after
	// each of the copy's last nodes.
	var leaves []*Node
	hasDependent := map[*Node]bool{}
	for _, n := range c.nodes {
		for _, d := range n.deps {
			hasDependent[d] = true
		}
	}
	for _, n := range c.nodes {
		if !hasDependent[n] {
			leaves = append(leaves, n)
		}
	}
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.destroyed {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	for i, d := range deps {
		if d == nil || d.g != g || d.removed || d.inner {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dependency %d is nil or of another graph", i)
		}
		for j := range i {
			if deps[j] == d {
				return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dependencies %d and %d are the same %s node", j, i, d.Kind())
			}
		}
	}
	var entry []*Node
	for _, n := range c.nodes {
		n.g, n.inner = g, true
		if len(n.deps) == 0 {
			n.deps = append([]*Node(nil), deps...)
			entry = append(entry, n)
		}
		g.nodes = append(g.nodes, n)
	}
	end := &Node{g: g, kind: kindChild, childDeps: append([]*Node(nil), deps...), entry: entry}
	end.deps = leaves
	if len(c.nodes) == 0 {
		end.deps = append([]*Node(nil), deps...)
	}
	g.nodes = append(g.nodes, end)
	return end, nil
}
