package graph

import (
	"reflect"
	"slices"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
)

// UpdateResult is hipGraphExecUpdateResult: why Update refused a graph.
type UpdateResult int

// Update's results, with HIP's values.
const (
	UpdateSuccess                        UpdateResult = 0
	UpdateError                          UpdateResult = 1 // refused for a reason the error gives
	UpdateErrorTopologyChanged           UpdateResult = 2 // other nodes or other edges
	UpdateErrorNodeTypeChanged           UpdateResult = 3 // a node's kind differs
	UpdateErrorFunctionChanged           UpdateResult = 4
	UpdateErrorParametersChanged         UpdateResult = 5 // a node's new parameters do not pass the checks of Instantiate
	UpdateErrorNotSupported              UpdateResult = 6 // memory alloc or free nodes
	UpdateErrorUnsupportedFunctionChange UpdateResult = 7
)

var updateNames = [...]string{"success", "error", "topology changed", "node type changed", "function changed", "parameters changed", "not supported", "unsupported function change"}

func (r UpdateResult) String() string {
	if r < 0 || int(r) >= len(updateNames) {
		return "unknown update result"
	}
	return updateNames[r]
}

// Update gives the executable graph the parameters of g's nodes
// (hipGraphExecUpdate) without instantiating it again: g must have the
// nodes e was made from, of the same kinds in the same order, with the
// same edges. Nodes pair by position in Nodes' order with the inner
// nodes of child graphs, as HIP pairs them by order. On refusal the
// error is gpu.ErrGraphExecUpdateFailure, the result says why and the
// node, where one is to blame, is g's; e is then unchanged. Launches
// already queued keep the old parameters. Graphs with memory alloc or
// free nodes are refused (UpdateErrorNotSupported). The per-node setters
// (SetKernelParams, SetCopyParams, SetFillParams, SetHostParams) keep
// taking the nodes of the graph e was made from.
func (e *Exec) Update(g *Graph) (UpdateResult, *Node, error) {
	const op = "graph exec update"
	if err := e.check(op); err != nil {
		return UpdateError, nil, err
	}
	if g == nil {
		return UpdateError, nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	g.mu.Lock()
	if g.destroyed {
		g.mu.Unlock()
		return UpdateError, nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	nodes, deps := g.snapshot()
	g.mu.Unlock()
	fail := func(r UpdateResult, n *Node, format string, a ...any) (UpdateResult, *Node, error) {
		return r, n, gpu.Errorf(gpu.ErrGraphExecUpdateFailure, op, format, a...)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.destroyed {
		return UpdateError, nil, gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph was destroyed")
	}
	if e.memNodes != nil {
		return fail(UpdateErrorNotSupported, nil, "the executable graph has memory alloc or free nodes")
	}
	if len(nodes) != len(e.kinds) {
		return fail(UpdateErrorTopologyChanged, nil, "%d nodes, the executable graph has %d", len(nodes), len(e.kinds))
	}
	index := make(map[*Node]int, len(nodes))
	for i, n := range nodes {
		index[n] = i
		if n.kind == kindMemAlloc || n.kind == kindMemFree {
			return fail(UpdateErrorNotSupported, n, "node %d is a %s node", i, n.Kind())
		}
		if n.kind != e.kinds[i] {
			return fail(UpdateErrorNodeTypeChanged, n, "node %d is a %s node, was a %s node", i, n.Kind(), kindNames[e.kinds[i]])
		}
		if !slices.Equal(indices(deps[i], index), e.topo[i]) {
			return fail(UpdateErrorTopologyChanged, n, "node %d (%s) has other dependencies", i, n.Kind())
		}
	}
	pkts := make([]core.GraphPacket, 0, len(e.pkts))
	uses := make([][]core.MemUse, 0, len(e.pkts))
	live := make([]liveCheck, 0, len(e.pkts))
	events := make([]eventOp, 0, len(e.events))
	for i, n := range nodes {
		if n.kind == kindEventRecord || n.kind == kindEventWait {
			ev, err := lowerEvent(n)
			if err != nil {
				return fail(UpdateErrorParametersChanged, n, "node %d (%s): %v", i, n.Kind(), err)
			}
			// The node of the graph e was made from keeps its place
			// (SetRecordedEvent and SetWaitedEvent name it).
			orig := e.events[len(events)].node
			events = append(events, eventOp{at: len(pkts), wait: n.kind == kindEventWait, ev: ev, node: orig})
			continue
		}
		p, us, l, err := n.lower(e.dev)
		if err != nil {
			return fail(UpdateErrorParametersChanged, n, "node %d (%s): %v", i, n.Kind(), err)
		}
		if p == nil {
			continue
		}
		pkts, uses, live = append(pkts, *p), append(uses, us), append(live, l)
	}
	e.pkts, e.nodeUses, e.live, e.events = pkts, uses, live, events
	e.merge()
	e.relower()
	return UpdateSuccess, nil, nil
}

// SetCopyParams replaces copy node n's operation in the executable graph
// with a copy of count elements from src[srcOff:] to dst[dstOff:]
// (hipGraphExecMemcpyNodeSetParams), checked as AddCopy and Instantiate
// check it; launches already queued keep the old one. The graph n
// belongs to is unchanged.
func (e *Exec) SetCopyParams(n *Node, dst buffer.Object, dstOff int, src buffer.Object, srcOff, count int) error {
	const op = "graph exec memcpy node set params"
	if err := e.check(op); err != nil {
		return err
	}
	with, err := copyNode(op, dst, dstOff, src, srcOff, count)
	if err != nil {
		return err
	}
	return e.replace(op, n, with)
}

// SetFillParams replaces fill node n's operation in the executable graph
// e with a fill of every element of b with v (hipGraphExecMemsetNodeSetParams);
// T must be b's element type. Launches already queued keep the old one.
func SetFillParams[T any](e *Exec, n *Node, b buffer.Object, v T) error {
	const op = "graph exec memset node set params"
	if err := e.check(op); err != nil {
		return err
	}
	with, err := fillNode[T](op, b, v)
	if err != nil {
		return err
	}
	return e.replace(op, n, with)
}

// SetHostParams replaces host node n's function in the executable graph
// (hipGraphExecHostNodeSetParams). Launches already queued keep the old
// one.
func (e *Exec) SetHostParams(n *Node, fn func() error) error {
	const op = "graph exec host node set params"
	if err := e.check(op); err != nil {
		return err
	}
	if fn == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil function")
	}
	return e.replace(op, n, &Node{kind: kindHost, host: fn})
}

// Upload readies the executable graph for launches on s
// (hipGraphUpload; a nil s is the device's default stream). An Exec's
// packets are laid out at Instantiate, so Upload only checks that e and
// s could launch.
func (e *Exec) Upload(s *stream.Stream) error {
	const op = "graph upload"
	if err := e.check(op); err != nil {
		return err
	}
	s, err := e.streamFor(op, s)
	if err != nil {
		return err
	}
	if err := (*core.Stream)(s).Check(op); err != nil {
		return err
	}
	if e.isDestroyed() {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph was destroyed")
	}
	return nil
}

// indices are deps' positions in index, sorted: the edges of a node
// whatever the order they were added in.
func indices(deps []*Node, index map[*Node]int) []int {
	out := make([]int, len(deps))
	for i, d := range deps {
		out[i] = index[d]
	}
	slices.Sort(out)
	return out
}

// copyNode checks a copy as AddCopy does and returns its node, not yet
// in a graph.
func copyNode(op string, dst buffer.Object, dstOff int, src buffer.Object, srcOff, n int) (*Node, error) {
	dm, _ := core.MemOf(dst)
	sm, _ := core.MemOf(src)
	if dm == nil || sm == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if dm.Elem() != sm.Elem() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "element types differ: %s and %s", dm.Elem(), sm.Elem())
	}
	// The sizes never change: a range outside them is refused now, not
	// at Instantiate. Ownership, which may change, is checked there.
	if err := checkBounds(op, "destination: ", dm, dstOff, n); err != nil {
		return nil, err
	}
	if err := checkBounds(op, "source: ", sm, srcOff, n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "a copy of 0 elements") // as hipGraphAddMemcpyNode1D of 0 bytes
	}
	return &Node{kind: kindCopy, dst: dm, src: sm, dstOff: dstOff, srcOff: srcOff, n: n}, nil
}

// fillNode checks a fill as AddFill does and returns its node, not yet in
// a graph.
func fillNode[T any](op string, b buffer.Object, v T) (*Node, error) {
	m, _ := core.MemOf(b)
	if m == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if t := reflect.TypeFor[T](); t != m.Elem() {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "a %s value for %s, which holds %s", t, m, m.Elem())
	}
	pat, es, err := core.Pattern(v)
	if err != nil {
		return nil, errs.Wrap(op, err)
	}
	return &Node{kind: kindFill, dst: m, n: m.Len(), pattern: pat, patSize: es}, nil
}
