package graph

import (
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Exec is an instantiated graph (hipGraphExec_t): its launches checked,
// its packets laid out, ready to be written into any stream of its device
// as many times as wanted. It is independent of the graph it came from.
// Launch, Update, the Set…Params calls, Upload and Destroy are safe from
// several goroutines.
type Exec struct {
	dev *gpu.Device

	mu        sync.RWMutex // Launch reads; updates and Destroy write
	pkts      []core.GraphPacket
	nodeUses  [][]core.MemUse // each packet's buffers
	live      []liveCheck     // each kernel packet's liveness; zero for others
	checks    []func() error  // live's checks, one per kernel (merge)
	nodePkt   map[*Node]int   // node with a packet → packet
	kinds     []nodeKind      // each node's kind, in order (Update)
	topo      [][]int         // each node's dependencies as indices (Update)
	flags     InstantiateFlags
	autoFree  bool          // InstantiateAutoFreeOnLaunch
	uses      []core.MemUse // the graph's buffers, strongest access
	memUses   []core.MemUse // the memory of alloc and free nodes, which have no packet
	low       *lowered      // the driver's recording of pkts, if it made one
	events    []eventOp     // event record and wait nodes, in order
	destroyed bool
	// from is the graph with alloc nodes this came from, whose one
	// instantiation it is until Destroy; nil otherwise.
	from *Graph

	allocs []*core.GraphAlloc // the alloc nodes' memory, one reference each
	keeps  []*core.GraphAlloc // allocated and not freed: left allocated by a launch
	frees  []*core.GraphAlloc // other graphs' memory that free nodes free
	// With memory nodes, the nodes and each one's buffers, so that
	// SetKernelParams checks a new launch's uses against them.
	memNodes []*Node
	memDeps  [][]*Node
	memOrder [][]core.MemUse
}

// Instantiate checks every node for dev, as a direct launch, copy or fill
// on a stream of dev would be, and lays out its packets
// (hipGraphInstantiate).
func (g *Graph) Instantiate(dev *gpu.Device) (*Exec, error) {
	return g.instantiate("graph instantiate", dev, 0)
}

// InstantiateFlags are hipGraphInstantiateFlags.
type InstantiateFlags uint64

// The flags of hipGraphInstantiateFlags, with HIP's values. HIP's
// InstantiateWithFlags takes 0, InstantiateAutoFreeOnLaunch or
// InstantiateUseNodePriority, one at a time; so does hipgo.
const (
	// InstantiateAutoFreeOnLaunch: a launch ends the allocation the last
	// launch left (alloc nodes without a free node) instead of refusing
	// to run while it is allocated.
	InstantiateAutoFreeOnLaunch InstantiateFlags = 1
	// InstantiateUpload: upload at instantiation. Refused, as HIP
	// refuses it (an Exec's packets are laid out by Instantiate anyway).
	InstantiateUpload InstantiateFlags = 2
	// InstantiateDeviceLaunch: launches from kernels. Refused, as HIP
	// refuses it.
	InstantiateDeviceLaunch InstantiateFlags = 4
	// InstantiateUseNodePriority: kernel nodes' priorities. Accepted;
	// nodes have no priority of their own, so the stream's applies.
	InstantiateUseNodePriority InstantiateFlags = 8
)

// InstantiateWithFlags is Instantiate with flags
// (hipGraphInstantiateWithFlags): 0, InstantiateAutoFreeOnLaunch or
// InstantiateUseNodePriority; other flags, and combinations, are
// ErrInvalidValue, as in HIP.
func (g *Graph) InstantiateWithFlags(dev *gpu.Device, flags InstantiateFlags) (*Exec, error) {
	const op = "graph instantiate with flags"
	switch flags {
	case 0, InstantiateAutoFreeOnLaunch, InstantiateUseNodePriority:
	default:
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "flags %#x: HIP takes 0, auto-free on launch (1) or use node priority (8)", uint64(flags))
	}
	return g.instantiate(op, dev, flags)
}

// Flags are the flags e was instantiated with (hipGraphExecGetFlags); 0
// for a nil Exec.
func (e *Exec) Flags() InstantiateFlags {
	if e == nil {
		return 0
	}
	return e.flags
}

func (g *Graph) instantiate(op string, dev *gpu.Device, flags InstantiateFlags) (*Exec, error) {
	if g == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "nil graph")
	}
	if dev == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidDevice, op, "nil device")
	}
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap(op, err)
	}
	g.mu.Lock()
	if g.destroyed {
		g.mu.Unlock()
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph was destroyed")
	}
	nodes, deps := g.snapshot()
	e := &Exec{dev: dev, nodePkt: map[*Node]int{}, flags: flags, autoFree: flags&InstantiateAutoFreeOnLaunch != 0}
	for _, n := range nodes {
		if n.kind == kindMemAlloc {
			n.mem.Retain() // the graph's reference stands while g.mu is held
			e.allocs = append(e.allocs, n.mem)
		}
	}
	if len(e.allocs) > 0 {
		if g.memExec != nil && !g.memExec.isDestroyed() {
			g.mu.Unlock()
			for _, ga := range e.allocs {
				ga.Release()
			}
			return nil, gpu.Errorf(gpu.ErrNotSupported, op, "a graph with memory allocation nodes has one instantiation at a time: destroy the other first")
		}
		g.memExec, e.from = e, g
	}
	g.mu.Unlock()
	if err := e.build(op, dev, nodes, deps); err != nil {
		for _, ga := range e.allocs {
			ga.Release()
		}
		e.forget()
		return nil, err
	}
	e.merge()
	e.relower()
	return e, nil
}

// snapshot is the graph's nodes and each one's dependencies, g.mu held:
// edges may change after it.
func (g *Graph) snapshot() ([]*Node, [][]*Node) {
	nodes := append([]*Node(nil), g.nodes...)
	deps := make([][]*Node, len(nodes))
	for i, n := range nodes {
		deps[i] = append([]*Node(nil), n.deps...)
	}
	return nodes, deps
}

// check reports an Exec that is no executable graph: nil, or a zero
// Exec, which Graph.Instantiate did not make.
func (e *Exec) check(op string) error {
	if e == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil executable graph")
	}
	if e.dev == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph not made by Graph.Instantiate (a zero Exec)")
	}
	return nil
}

// streamFor is the stream a launch or upload of e uses: s, or the
// device's default stream where s is nil; a stream of another device is
// refused.
func (e *Exec) streamFor(op string, s *stream.Stream) (*stream.Stream, error) {
	if s == nil {
		return stream.DefaultStream(e.dev)
	}
	if s.Device() != e.dev {
		if err := (*core.Stream)(s).Check(op); err != nil {
			return nil, err // a zero Stream, which has no device
		}
		return nil, gpu.Errorf(gpu.ErrInvalidValue, op, "graph instantiated for %s, the stream is on %s", e.dev, s.Device())
	}
	return s, nil
}

// Launch runs the graph on s (a nil s is the device's default stream)
// after the work queued on s before it and after the earlier users of its
// buffers on other streams (hipGraphLaunch). Its packets enter the queue
// in one reservation with one doorbell.
func (e *Exec) Launch(s *stream.Stream) error {
	const op = "graph launch"
	if err := e.check(op); err != nil {
		return err
	}
	s, err := e.streamFor(op, s)
	if err != nil {
		return err
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.destroyed {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph was destroyed")
	}
	// Ownership may have moved since Instantiate (Transfer): checked per
	// launch, as a direct launch checks it.
	for _, u := range e.uses {
		if err := u.M.CheckAccess(op, e.dev); err != nil {
			return err
		}
	}
	for _, live := range e.checks {
		if err := live(); err != nil {
			return err
		}
	}
	if err := e.claim(op); err != nil {
		return err
	}
	switch {
	case len(e.events) > 0:
		err = e.launchEvents(op, s)
	case e.low != nil:
		err = launchLowered(op, (*core.Stream)(s), e.low, e.uses)
	default:
		err = (*core.Stream)(s).Replay(op, e.pkts, e.uses)
	}
	if err != nil {
		e.unclaim(len(e.keeps), len(e.frees))
	}
	return err
}

// claim records the launch's allocations that outlive it and its frees
// of other graphs' memory: a graph that allocates without freeing is not
// launched again before its memory is freed, and a free node of another
// graph's memory needs an allocation of it to end.
func (e *Exec) claim(op string) error {
	for i, ga := range e.keeps {
		if !ga.Launched() && !e.autoFree {
			e.unclaim(i, 0)
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: the graph allocates it without freeing it, and its last launch's allocation was not freed: free it (Free, FreeAsync or a graph's free node) before launching again", ga)
		}
	}
	for i, ga := range e.frees {
		if !ga.FreedBy() {
			e.unclaim(len(e.keeps), i)
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%s: a free node frees it, but no launch of the graph that allocates it left it allocated", ga)
		}
	}
	return nil
}

// unclaim undoes the first k keeps and f frees of claim.
func (e *Exec) unclaim(k, f int) {
	if e.autoFree {
		k = 0 // the memory may be the last launch's, which stays allocated
	}
	for _, ga := range e.keeps[:k] {
		ga.Unlaunch()
	}
	for _, ga := range e.frees[:f] {
		ga.Unfree()
	}
}

// SetKernelParams replaces kernel node n's launch in the executable graph
// (hipGraphExecKernelNodeSetParams), checked as a launch is; launches
// already queued keep the old one. The graph n belongs to is unchanged.
func (e *Exec) SetKernelParams(n *Node, k Kernel) error {
	const op = "graph exec kernel node set params"
	if err := e.check(op); err != nil {
		return err
	}
	if k.Func == nil {
		return gpu.Errorf(gpu.ErrInvalidDeviceFunction, op, "nil function")
	}
	if k.Typed == nil {
		k.Args = append([]any(nil), k.Args...) // the caller may reuse its slice
	}
	return e.replace(op, n, &Node{kind: kindKernel, kernel: k})
}

// replace puts the packet of with, a node of n's kind made for the call,
// in n's place.
func (e *Exec) replace(op string, n *Node, with *Node) error {
	if n == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil node")
	}
	p, uses, live, err := with.lower(e.dev)
	if err != nil {
		return errs.Wrap(op, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.destroyed {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph was destroyed")
	}
	i, ok := e.nodePkt[n]
	if !ok || n.kind != with.kind {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "not a %s node of this executable graph", with.Kind())
	}
	if e.memNodes != nil {
		// The new operation may reach graph memory where the edges do not
		// order it inside the allocation.
		order := append([][]core.MemUse(nil), e.memOrder...)
		for j, m := range e.memNodes {
			if m == n {
				order[j] = uses
			}
		}
		if err := checkMemOrder(e.memNodes, e.memDeps, order); err != nil {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "%v", err)
		}
		e.memOrder = order
	}
	e.pkts[i] = *p
	e.nodeUses[i] = uses
	e.live[i] = live
	e.merge()
	e.relower()
	return nil
}

// relower records the packets again where the driver recorded them:
// launches already queued keep the old recording. A graph with event
// nodes is replayed in parts around them (launchEvents), never recorded.
func (e *Exec) relower() {
	if e.low != nil {
		e.low.release()
		e.low = nil
	}
	if len(e.events) == 0 {
		e.low = lower(e.dev, e.pkts)
	}
}

// Destroy releases the executable graph (hipGraphExecDestroy); launches
// already queued complete. The memory of its alloc nodes returns to its
// pool after them, once the graph it came from is destroyed too.
func (e *Exec) Destroy() error {
	const op = "graph exec destroy"
	if err := e.check(op); err != nil {
		return err
	}
	e.mu.Lock()
	if e.destroyed {
		e.mu.Unlock()
		return gpu.Errorf(gpu.ErrInvalidValue, op, "executable graph already destroyed")
	}
	e.destroyed = true
	if e.low != nil {
		e.low.release()
		e.low = nil
	}
	allocs := e.allocs
	e.pkts, e.nodeUses, e.uses, e.live, e.checks, e.memUses = nil, nil, nil, nil, nil, nil
	e.allocs, e.keeps, e.frees, e.memNodes, e.memDeps, e.memOrder = nil, nil, nil, nil, nil, nil
	e.nodePkt, e.kinds, e.topo, e.events = nil, nil, nil, nil
	e.mu.Unlock()
	for _, ga := range allocs {
		ga.Release()
	}
	e.forget()
	return nil
}

// isDestroyed reports whether Destroy ran.
func (e *Exec) isDestroyed() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.destroyed
}

// forget lets the graph e came from be instantiated again.
func (e *Exec) forget() {
	g := e.from
	if g == nil {
		return
	}
	g.mu.Lock()
	if g.memExec == e {
		g.memExec = nil
	}
	g.mu.Unlock()
}
