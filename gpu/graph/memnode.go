package graph

import (
	"fmt"
	"reflect"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// AddMemAlloc adds an alloc node of n elements of T on dev after deps
// (hipGraphAddMemAllocNode) and returns the buffer it allocates, which
// later nodes of the graph take like any buffer: kernel arguments,
// copies, fills, views of it, and a free node (AddMemFree).
//
// The memory comes from dev's default stream-ordered pool when the node
// is made, and stays the graph's for the life of the graph and of the
// executable graphs made from it: its address is the same at every
// launch, as CUDA fixes it for the life of the executable graph, and a
// launch costs no allocation. It returns to the pool, for any allocation
// to reuse, once the graph and its executable graphs are destroyed and
// their launches have completed.
//
// A graph that allocates without freeing leaves the memory allocated
// after each launch, as in CUDA: work after the launch may use the
// buffer, and Free, FreeAsync or a free node of a later graph ends the
// allocation. Launching the graph again before that is an error.
func AddMemAlloc[T any](g *Graph, dev *gpu.Device, n int, deps ...*Node) (*Node, *buffer.Buffer[T], error) {
	const op = "graph add mem alloc node"
	if g == nil {
		return nil, nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	if dev == nil {
		return nil, nil, gpu.Errorf(gpu.ErrInvalidDevice, op, "nil device")
	}
	if err := dev.Valid(); err != nil {
		return nil, nil, errs.Wrap(op, err)
	}
	p, err := core.DefaultMemPool(dev)
	if err != nil {
		return nil, nil, errs.Wrap(op, err)
	}
	b := &buffer.Buffer[T]{}
	m, _ := core.MemOf(b)
	ga, err := p.AllocGraph(m, reflect.TypeFor[T](), n)
	if err != nil {
		return nil, nil, err
	}
	nd, err := g.add(op, &Node{kind: kindMemAlloc, mem: ga}, deps)
	if err != nil {
		ga.Release()
		return nil, nil, err
	}
	return nd, b, nil
}

// AddMemFree adds a free node of b after deps (hipGraphAddMemFreeNode).
// b must be graph memory: a buffer of an alloc node of this graph or of
// another one, or of a NewAsync captured into a graph. A free node of
// another graph's memory ends the allocation a launch of that graph left
// (the launch fails when none is live); either way the memory stays its
// graph's, so the next launch finds it at the same address.
func (g *Graph) AddMemFree(b buffer.Object, deps ...*Node) (*Node, error) {
	const op = "graph add mem free node"
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	m, _ := core.MemOf(b)
	if m == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := m.Check(op); err != nil {
		return nil, err
	}
	ga := core.GraphAllocOf(m)
	if ga == nil || ga.Mem() != m {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "%s is not the buffer of an alloc node: a graph frees only graph memory, whole", m)
	}
	return g.add(op, &Node{kind: kindMemFree, mem: ga}, deps)
}

// MemParams are the memory of an alloc or free node
// (hipMemAllocNodeParams, and hipGraphMemFreeNodeGetParams' address).
type MemParams struct {
	Device *gpu.Device
	Ptr    uintptr // the device address, the same at every launch
	Bytes  int
}

// MemParams returns the memory an alloc or free node allocates or frees
// (hipGraphMemAllocNodeGetParams, hipGraphMemFreeNodeGetParams).
func (n *Node) MemParams() (MemParams, error) {
	const op = "graph mem node get params"
	if n == nil {
		return MemParams{}, gpu.Errorf(gpu.ErrInvalidValue, op, "nil node")
	}
	if n.kind != kindMemAlloc && n.kind != kindMemFree {
		return MemParams{}, gpu.Errorf(gpu.ErrInvalidValue, op, "a %s node, not a mem alloc or free node", n.Kind())
	}
	m := n.mem.Mem()
	return MemParams{Device: m.Device(), Ptr: m.Addr(), Bytes: m.Size()}, nil
}

// checkMemOrder refuses a graph whose nodes use graph memory outside its
// allocation: a node that uses an alloc node's memory must be ordered
// after the alloc node by the graph's edges, and a node that uses memory
// a free node frees must be ordered before it. uses are each node's
// buffers.
func checkMemOrder(nodes []*Node, deps [][]*Node, uses [][]core.MemUse) error {
	alloc := map[*core.GraphAlloc]int{}
	free := map[*core.GraphAlloc]int{}
	for i, n := range nodes {
		switch n.kind {
		case kindMemAlloc:
			alloc[n.mem] = i
		case kindMemFree:
			if j, ok := free[n.mem]; ok {
				return fmt.Errorf("nodes %d and %d (mem free) both free %s", j, i, n.mem)
			}
			free[n.mem] = i
		}
	}
	if len(alloc) == 0 && len(free) == 0 {
		return nil
	}
	// before[i] holds the nodes i is ordered after. Nodes come after
	// their dependencies, so one pass in order fills it.
	index := make(map[*Node]int, len(nodes))
	words := (len(nodes) + 63) / 64
	before := make([][]uint64, len(nodes))
	for i, n := range nodes {
		index[n] = i
		b := make([]uint64, words)
		for _, d := range deps[i] {
			j := index[d]
			b[j/64] |= 1 << (j % 64)
			for w := range b {
				b[w] |= before[j][w]
			}
		}
		before[i] = b
	}
	after := func(i, j int) bool { return before[i][j/64]&(1<<(j%64)) != 0 } // i after j
	for ga, f := range free {
		if a, ok := alloc[ga]; ok && !after(f, a) {
			return fmt.Errorf("node %d (mem free) frees %s but is not ordered after its alloc node %d", f, ga, a)
		}
	}
	for i, us := range uses {
		for _, u := range us {
			ga := core.GraphAllocOf(u.M)
			if ga == nil {
				continue
			}
			if a, ok := alloc[ga]; ok && i != a && !after(i, a) {
				return fmt.Errorf("node %d (%s) uses %s before its alloc node %d: no path of edges orders it after the allocation", i, nodes[i].Kind(), u.M, a)
			}
			if f, ok := free[ga]; ok && i != f && !after(f, i) {
				return fmt.Errorf("node %d (%s) uses %s after its free node %d: no path of edges orders it before the free", i, nodes[i].Kind(), u.M, f)
			}
		}
	}
	return nil
}
