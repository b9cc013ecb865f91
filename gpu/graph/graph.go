package graph

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Graph is a set of operations and the dependencies between them
// (hipGraph_t). Nodes are added after the nodes they depend on, so a graph
// has no cycles and the order of addition is an order that respects every
// dependency. A Graph is safe for use by several goroutines.
type Graph struct {
	mu        sync.Mutex
	nodes     []*Node
	destroyed bool
	// memExec is the live instantiation of a graph with alloc nodes: as
	// in HIP and CUDA, such a graph has one at a time.
	memExec *Exec
	// capture: the capture that records into the graph (CaptureGraph);
	// nil once EndCapture returned it.
	capture *captureGraph
}

type nodeKind uint8

const (
	kindEmpty nodeKind = iota
	kindKernel
	kindCopy
	kindFill
	kindHost
	kindCaptured
	kindMemAlloc
	kindMemFree
	kindChild // a child graph's end; its nodes are the graph's, hidden
	kindEventRecord
	kindEventWait
)

var kindNames = [...]string{"empty", "kernel", "memcpy", "memset", "host function", "captured", "mem alloc", "mem free", "child graph", "event record", "event wait"}

// Node is one operation of a graph (hipGraphNode_t).
type Node struct {
	g    *Graph
	kind nodeKind
	deps []*Node

	kernel Kernel

	dst, src       *core.Mem // copy; fill: dst
	dstOff, srcOff int
	n              int
	pattern        uint64
	patSize        int

	host func() error

	// event: an event record or wait node's event, under g.mu
	// (SetRecordedEvent, SetWaitedEvent).
	event *stream.Event

	captured core.CapturedNode

	// mem: an alloc node's memory, or the memory a free node frees.
	mem *core.GraphAlloc

	// inner: a node of a child graph (AddChildGraph), which runs as the
	// graph's own but is not listed among its nodes.
	inner bool
	// childDeps: a child graph node's dependencies as given; its deps are
	// the child's last nodes. entry: the child's first nodes, which
	// childDeps reach (none for an empty child, whose deps are childDeps).
	childDeps []*Node
	entry     []*Node
	// removed: DestroyNode took the node out of its graph.
	removed bool
}

// Kernel is a kernel node's launch (hipKernelNodeParams): the function,
// grid in blocks, block in threads, dynamic shared memory, and the
// arguments either as LaunchKernelGGL takes them (Args) or typed
// (Typed, which wins when set).
type Kernel struct {
	Func      *module.Function
	Grid      gpu.Dim3
	Block     gpu.Dim3
	SharedMem int
	Args      []any
	Typed     *module.Args
}

func (k *Kernel) args() any {
	if k.Typed != nil {
		return k.Typed
	}
	return k.Args
}

// New returns an empty graph (hipGraphCreate).
func New() *Graph { return &Graph{} }

// Kind names the node's operation: "kernel", "memcpy", "memset", "host
// function", "captured", "mem alloc", "mem free", "child graph", "event
// record", "event wait" or "empty"; "" for a nil node.
func (n *Node) Kind() string {
	if n == nil {
		return ""
	}
	return kindNames[n.kind]
}

// add appends n after checking its dependencies.
func (g *Graph) add(op string, n *Node, deps []*Node) (*Node, error) {
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.destroyed {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	for i, d := range deps {
		if d == nil {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dependency %d is nil", i)
		}
		if d.g != g || d.removed || d.inner {
			return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dependency %d (%s) belongs to another graph", i, d.Kind())
		}
		for j := range i {
			if deps[j] == d {
				return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "dependencies %d and %d are the same %s node", j, i, d.Kind())
			}
		}
	}
	n.g = g
	n.deps = append([]*Node(nil), deps...)
	g.nodes = append(g.nodes, n)
	return n, nil
}

// AddKernel adds a kernel launch after deps (hipGraphAddKernelNode). The
// launch is checked when the graph is instantiated, as a direct launch is.
func (g *Graph) AddKernel(k Kernel, deps ...*Node) (*Node, error) {
	if k.Func == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidDeviceFunction, "graph add kernel node", "nil function")
	}
	if k.Typed == nil {
		k.Args = append([]any(nil), k.Args...) // the caller may reuse its slice
	}
	return g.add("graph add kernel node", &Node{kind: kindKernel, kernel: k}, deps)
}

// AddCopy adds a copy of n elements from src[srcOff:] to dst[dstOff:]
// after deps (hipGraphAddMemcpyNode, device to device).
func (g *Graph) AddCopy(dst buffer.Object, dstOff int, src buffer.Object, srcOff, n int, deps ...*Node) (*Node, error) {
	const op = "graph add memcpy node"
	nd, err := copyNode(op, dst, dstOff, src, srcOff, n)
	if err != nil {
		return nil, err
	}
	return g.add(op, nd, deps)
}

// AddFill adds a fill of every element of b with v after deps
// (hipGraphAddMemsetNode); T must be b's element type.
func AddFill[T any](g *Graph, b buffer.Object, v T, deps ...*Node) (*Node, error) {
	const op = "graph add memset node"
	nd, err := fillNode[T](op, b, v)
	if err != nil {
		return nil, err
	}
	return g.add(op, nd, deps)
}

// AddHost adds a call of fn on the host after deps (hipGraphAddHostNode).
// An error fn returns fails the launch like a failed kernel: it is sticky
// on the stream the graph ran on.
func (g *Graph) AddHost(fn func() error, deps ...*Node) (*Node, error) {
	if fn == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "graph add host node", "nil function")
	}
	return g.add("graph add host node", &Node{kind: kindHost, host: fn}, deps)
}

// AddEmpty adds a node that does nothing, to join dependencies
// (hipGraphAddEmptyNode).
func (g *Graph) AddEmpty(deps ...*Node) (*Node, error) {
	return g.add("graph add empty node", &Node{kind: kindEmpty}, deps)
}

// Len is the number of nodes; 0 for a nil graph.
func (g *Graph) Len() int {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, x := range g.nodes {
		if !x.inner {
			n++
		}
	}
	return n
}

// Dependencies are the nodes n runs after; none for a nil node. A child
// graph node's are those given to AddChildGraph.
func (n *Node) Dependencies() []*Node {
	if n == nil {
		return nil
	}
	if n.g != nil {
		n.g.mu.Lock() // AddDependencies and RemoveDependencies change them
		defer n.g.mu.Unlock()
	}
	return n.depsLocked()
}

// depsLocked are n's dependencies as the user sees them, g.mu held.
func (n *Node) depsLocked() []*Node {
	if n.kind == kindChild {
		return append([]*Node(nil), n.childDeps...)
	}
	return append([]*Node(nil), n.deps...)
}

// Destroy releases the graph (hipGraphDestroy). Executable graphs made
// from it stay valid. The memory of its alloc nodes returns to its pool
// once no executable graph made from it remains. The graph a capture
// records into (CaptureGraph) cannot be destroyed before EndCapture
// (ErrIllegalState).
func (g *Graph) Destroy() error {
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, "graph destroy", "nil graph")
	}
	g.mu.Lock()
	cg := g.capture
	g.mu.Unlock()
	if cg != nil && cg.live() {
		return gpu.Errorf(gpu.ErrIllegalState, "graph destroy", "a stream is capturing into the graph: end the capture first")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.destroyed {
		return gpu.Errorf(gpu.ErrInvalidValue, "graph destroy", "graph already destroyed")
	}
	g.destroyed = true
	for _, n := range g.nodes {
		// A capture that failed returned its memory itself.
		if n.kind == kindMemAlloc && g.capture == nil {
			n.mem.Release() // executable graphs hold their own reference
		}
	}
	g.nodes = nil
	return nil
}
