package graph

import "github.com/hipgo/hipgo/gpu"

// AddDependencies adds the edges from[i] → to[i]: to[i] runs after from[i]
// (hipGraphAddDependencies). from and to have one node per edge. A nil
// node, a node of another graph or one taken out by DestroyNode, an edge
// from a node to itself, an edge that exists or is listed twice, and an
// edge that would close a cycle are ErrInvalidValue, and no edge is added.
// HIP checks cycles at instantiation; refusing them here keeps every graph
// runnable.
func (g *Graph) AddDependencies(from, to []*Node) error {
	const op = "graph add dependencies"
	if err := g.editable(op, from, to); err != nil {
		return err
	}
	defer g.mu.Unlock()
	for i := range from {
		f, t := from[i], to[i]
		if f == t {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "edge %d: a %s node cannot depend on itself", i, f.Kind())
		}
		if hasEdge(f, t) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "edge %d: the %s node already depends on the %s node", i, t.Kind(), f.Kind())
		}
		for j := range i {
			if from[j] == f && to[j] == t {
				return gpu.Errorf(gpu.ErrInvalidValue, op, "edges %d and %d are the same", j, i)
			}
		}
	}
	for i := range from {
		link(from[i], to[i])
	}
	if order, ok := topoOrder(g.nodes); ok {
		g.nodes = order
		return nil
	}
	for i := range from {
		unlink(from[i], to[i])
	}
	return gpu.Errorf(gpu.ErrInvalidValue, op, "the edges would make a cycle")
}

// RemoveDependencies removes the edges from[i] → to[i]
// (hipGraphRemoveDependencies). An edge that does not exist is
// ErrInvalidValue, as are the nodes AddDependencies refuses, and no edge
// is removed. Executable graphs made before keep their edges.
func (g *Graph) RemoveDependencies(from, to []*Node) error {
	const op = "graph remove dependencies"
	if err := g.editable(op, from, to); err != nil {
		return err
	}
	defer g.mu.Unlock()
	for i := range from {
		if !hasEdge(from[i], to[i]) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "edge %d: the %s node does not depend on the %s node", i, to[i].Kind(), from[i].Kind())
		}
		for j := range i {
			if from[j] == from[i] && to[j] == to[i] {
				return gpu.Errorf(gpu.ErrInvalidValue, op, "edges %d and %d are the same", j, i)
			}
		}
	}
	for i := range from {
		unlink(from[i], to[i])
	}
	return nil // fewer edges keep the order topological
}

// DestroyNode takes n and its edges out of its graph (hipGraphDestroyNode);
// the nodes that depended on it no longer wait for it. Executable graphs
// made before keep it. Memory alloc and free nodes are not taken out
// (ErrNotSupported): their memory's allocation is ordered by them.
func (g *Graph) DestroyNode(n *Node) error {
	const op = "graph destroy node"
	if err := g.editable(op, []*Node{n}, []*Node{n}); err != nil {
		return err
	}
	defer g.mu.Unlock()
	if n.kind == kindMemAlloc || n.kind == kindMemFree {
		return gpu.Errorf(gpu.ErrNotSupported, op, "a %s node", n.Kind())
	}
	gone := map[*Node]bool{n: true}
	if n.kind == kindChild {
		// The child's copy goes with it: its nodes are those between its
		// entry and its end.
		mark(n, gone)
	}
	kept := g.nodes[:0]
	for _, m := range g.nodes {
		if gone[m] {
			m.removed = true
			continue
		}
		m.deps = without(m.deps, gone)
		m.childDeps = without(m.childDeps, gone)
		kept = append(kept, m)
	}
	clear(g.nodes[len(kept):])
	g.nodes = kept
	return nil
}

// mark adds to gone the inner nodes of child node c: those c's end
// reaches through its dependencies without leaving the child.
func mark(c *Node, gone map[*Node]bool) {
	stack := append([]*Node(nil), c.deps...)
	if len(c.entry) == 0 {
		return // an empty child: its deps are the graph's nodes
	}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !m.inner || gone[m] {
			continue
		}
		gone[m] = true
		stack = append(stack, m.deps...)
	}
}

func without(ns []*Node, gone map[*Node]bool) []*Node {
	if len(ns) == 0 {
		return ns
	}
	out := ns[:0:0]
	for _, d := range ns {
		if !gone[d] {
			out = append(out, d)
		}
	}
	return out
}

// editable checks the graph and the edges' nodes and, when they pass,
// returns with g.mu held.
func (g *Graph) editable(op string, from, to []*Node) error {
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	if len(from) != len(to) {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%d from nodes and %d to nodes", len(from), len(to))
	}
	g.mu.Lock()
	if g.destroyed {
		g.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	for i := range from {
		for _, n := range [2]*Node{from[i], to[i]} {
			if n == nil {
				g.mu.Unlock()
				return gpu.Errorf(gpu.ErrInvalidValue, op, "edge %d: nil node", i)
			}
			if n.g != g || n.removed || n.inner {
				g.mu.Unlock()
				return gpu.Errorf(gpu.ErrInvalidValue, op, "edge %d: the %s node is not a node of this graph", i, n.Kind())
			}
		}
	}
	return nil
}

// hasEdge reports whether t depends on f as the user sees it.
func hasEdge(f, t *Node) bool {
	for _, d := range t.depsLocked() {
		if d == f {
			return true
		}
	}
	return false
}

// link makes t depend on f; a child node's entry nodes depend on f too
// (an empty child's end, which has no entry, depends on it directly).
func link(f, t *Node) {
	if t.kind != kindChild {
		t.deps = append(t.deps, f)
		return
	}
	t.childDeps = append(t.childDeps, f)
	if len(t.entry) == 0 {
		t.deps = append(t.deps, f)
	}
	for _, e := range t.entry {
		e.deps = append(e.deps, f)
	}
}

// unlink undoes link(f, t).
func unlink(f, t *Node) {
	drop := map[*Node]bool{f: true}
	if t.kind != kindChild {
		t.deps = without(t.deps, drop)
		return
	}
	t.childDeps = without(t.childDeps, drop)
	if len(t.entry) == 0 {
		t.deps = without(t.deps, drop)
	}
	for _, e := range t.entry {
		e.deps = without(e.deps, drop)
	}
}

// topoOrder is nodes reordered so that every node follows its
// dependencies, keeping the order of addition where the edges allow;
// false if the edges make a cycle.
func topoOrder(nodes []*Node) ([]*Node, bool) {
	state := make(map[*Node]uint8, len(nodes)) // 1: being visited, 2: placed
	out := make([]*Node, 0, len(nodes))
	var visit func(n *Node) bool
	visit = func(n *Node) bool {
		switch state[n] {
		case 1:
			return false
		case 2:
			return true
		}
		state[n] = 1
		for _, d := range n.deps {
			if !visit(d) {
				return false
			}
		}
		state[n] = 2
		out = append(out, n)
		return true
	}
	for _, n := range nodes {
		if !visit(n) {
			return nil, false
		}
	}
	return out, true
}
