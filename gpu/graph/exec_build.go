package graph

import (
	"fmt"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/aql"
)

// build lowers every node into e and checks the order of graph memory.
func (e *Exec) build(op string, dev *gpu.Device, nodes []*Node, deps [][]*Node) error {
	all := make([][]core.MemUse, len(nodes))
	index := make(map[*Node]int, len(nodes))
	e.kinds, e.topo = make([]nodeKind, len(nodes)), make([][]int, len(nodes))
	for i, n := range nodes {
		index[n] = i
		e.kinds[i] = n.kind
		e.topo[i] = indices(deps[i], index)
	}
	for i, n := range nodes {
		if n.kind == kindEventRecord || n.kind == kindEventWait {
			ev, err := lowerEvent(n)
			if err != nil {
				return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Msg: fmt.Sprintf("node %d (%s)", i, n.Kind()), Err: err}
			}
			e.events = append(e.events, eventOp{at: len(e.pkts), wait: n.kind == kindEventWait, ev: ev, node: n})
			continue
		}
		p, uses, live, err := n.lower(dev)
		if err != nil {
			return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Msg: fmt.Sprintf("node %d (%s)", i, n.Kind()), Err: err}
		}
		all[i] = uses
		if n.kind == kindMemAlloc || n.kind == kindMemFree {
			e.memUses = append(e.memUses, uses...)
		}
		if p == nil {
			continue // empty and memory nodes: the queue's order already joins their dependencies
		}
		e.nodePkt[n] = len(e.pkts)
		e.live = append(e.live, live)
		e.pkts = append(e.pkts, *p)
		e.nodeUses = append(e.nodeUses, uses)
	}
	if err := checkMemOrder(nodes, deps, all); err != nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%v", err)
	}
	freed := map[*core.GraphAlloc]bool{}
	for _, n := range nodes {
		if n.kind == kindMemFree {
			freed[n.mem] = true
		}
	}
	if len(e.allocs) > 0 || len(freed) > 0 {
		e.memNodes, e.memDeps, e.memOrder = nodes, deps, all
	}
	for _, ga := range e.allocs {
		if !freed[ga] {
			e.keeps = append(e.keeps, ga)
		}
		delete(freed, ga)
	}
	for ga := range freed {
		e.frees = append(e.frees, ga)
	}
	return nil
}

// lower checks n for dev and returns its packet and buffers.
func (n *Node) lower(dev *gpu.Device) (*core.GraphPacket, []core.MemUse, liveCheck, error) {
	switch n.kind {
	case kindKernel:
		var k core.KernelNode
		if err := n.kernel.Func.PrepareNode(dev, n.kernel.Grid, n.kernel.Block, n.kernel.SharedMem, n.kernel.args(), &k); err != nil {
			return nil, nil, liveCheck{}, err
		}
		return &core.GraphPacket{Dispatch: k.Dispatch, Kernarg: k.Kernarg, Name: k.Name}, k.Uses, liveCheck{k.Live, k.LiveKey}, nil
	case kindCopy:
		const op = "memcpy node"
		if err := checkRange(op, dev, n.dst, n.dstOff, n.n); err != nil {
			return nil, nil, liveCheck{}, err
		}
		if err := checkRange(op, dev, n.src, n.srcOff, n.n); err != nil {
			return nil, nil, liveCheck{}, err
		}
		es := n.dst.ElemSize()
		cp := aql.CopyWork{Dst: uint64(n.dst.Addr()) + uint64(n.dstOff*es), Src: uint64(n.src.Addr()) + uint64(n.srcOff*es), Bytes: uint64(n.n * es)}
		p := &core.GraphPacket{Agent: true, Call: cp.Call(), Name: op}
		return p, []core.MemUse{{M: n.dst, Acc: core.Write}, {M: n.src, Acc: core.Read}}, liveCheck{}, nil
	case kindFill:
		const op = "memset node"
		if err := checkRange(op, dev, n.dst, 0, n.n); err != nil {
			return nil, nil, liveCheck{}, err
		}
		fill := aql.FillWork{Dst: uint64(n.dst.Addr()), Pattern: n.pattern, Count: uint64(n.n), ElemSize: uint64(n.patSize)}
		p := &core.GraphPacket{Agent: true, Call: fill.Call(), Name: op}
		return p, []core.MemUse{{M: n.dst, Acc: core.Write}}, liveCheck{}, nil
	case kindCaptured:
		c := &n.captured
		for _, u := range c.Uses {
			if err := u.M.CheckAccess(c.Packet.Name, dev); err != nil {
				return nil, nil, liveCheck{}, err
			}
		}
		p := c.Packet
		return &p, c.Uses, liveCheck{}, nil
	case kindHost:
		return &core.GraphPacket{Agent: true, Call: aql.CallbackWork{}.Call(), Host: n.host, Name: "host node"}, nil, liveCheck{}, nil
	case kindMemAlloc, kindMemFree:
		m := n.mem.Mem()
		if err := m.CheckAccess(n.Kind()+" node", dev); err != nil {
			return nil, nil, liveCheck{}, err
		}
		// A write: launches that share the memory order after each other,
		// and work after a launch orders after it.
		return nil, []core.MemUse{{M: m, Acc: core.Write}}, liveCheck{}, nil
	}
	return nil, nil, liveCheck{}, nil
}

func checkRange(op string, dev *gpu.Device, m *core.Mem, off, n int) error {
	if err := m.CheckAccess(op, dev); err != nil {
		return err
	}
	return checkBounds(op, "", m, off, n)
}

// checkBounds refuses elements [off, off+n) that are not all in m (end:
// which end of a copy m is, for the message), without computing off+n,
// which may overflow.
func checkBounds(op, end string, m *core.Mem, off, n int) error {
	if off < 0 || n < 0 || off > m.Len() || n > m.Len()-off {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "%s%d elements from element %d are outside %s", end, n, off, m)
	}
	return nil
}

// merge collects the graph's buffers, each once, with the strongest
// access any node makes: the replay orders itself after their earlier
// users and becomes their last user.
func (e *Exec) merge() {
	e.uses = e.uses[:0]
	for _, us := range e.nodeUses {
		e.mergeUses(us)
	}
	e.mergeUses(e.memUses)
	// A replay asks each kernel once whether it can run, not each node:
	// 100 nodes of one kernel were 100 checks, about 1.2 µs a replay.
	e.checks = e.checks[:0]
	seen := map[any]bool{}
	for _, l := range e.live {
		if l.fn == nil || l.key != nil && seen[l.key] {
			continue
		}
		if l.key != nil {
			seen[l.key] = true
		}
		e.checks = append(e.checks, l.fn)
	}
}

// liveCheck is a kernel packet's liveness and the kernel it asks about.
type liveCheck struct {
	fn  func() error
	key any
}

func (e *Exec) mergeUses(us []core.MemUse) {
next:
	for _, u := range us {
		for i := range e.uses {
			if e.uses[i].M == u.M {
				e.uses[i].Acc = max(e.uses[i].Acc, u.Acc)
				continue next
			}
		}
		e.uses = append(e.uses, u)
	}
}
