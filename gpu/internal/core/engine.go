package core

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// engine runs the synchronous copies and fills of one device: each is an
// AGENT_DISPATCH packet on a queue of the device's own, waited for on the
// host, as hipMemcpy is. A device's engine has its agent's reserved
// queue slot (gpu reserves it when it opens the device), so the
// program's streams cannot leave copies without a queue; the engine of
// a test's view makes its own queue, and runs on its device's engine
// when there is no slot left for one.
type engine struct {
	mu       sync.Mutex
	dev      *gpu.Device
	q        *rocr.Queue
	reserved bool
}

type engineKey struct{}

// ownEngine is the engine of m's device, for a host call on m alone.
func ownEngine(op string, m *Mem) (*engine, error) {
	dev := m.Device()
	if err := m.CheckAccess(op, dev); err != nil {
		return nil, err
	}
	e, err := engineOf(dev)
	if err != nil {
		return nil, errs.Wrap(op, err)
	}
	return e, nil
}

func engineOf(dev *gpu.Device) (*engine, error) {
	// The lookup first: DeviceValue's closure would cost an allocation
	// per copy.
	if v, ok := LookupValue(dev, engineKey{}); ok {
		return v.(*engine), nil
	}
	v, err := DeviceValue(dev, engineKey{}, func() (any, func() error, error) {
		e := &engine{dev: dev, reserved: Root(dev) == dev}
		return e, e.close, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*engine), nil
}

func (e *engine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.q == nil {
		return nil
	}
	err := e.q.Destroy()
	e.q = nil
	return err
}

// queue returns the engine's queue, replacing one that failed: a failed
// synchronous operation must not poison the next.
func (e *engine) queue() (*rocr.Queue, error) {
	if e.q != nil && e.q.Err() == nil && !e.q.Destroyed() {
		return e.q, nil
	}
	if e.q != nil {
		_ = e.q.Destroy()
		e.q = nil
	}
	var q *rocr.Queue
	var err error
	if e.reserved {
		q, err = e.dev.Agent().CreateReservedQueue(64, hsa.QueueSingle, nil)
	} else {
		q, err = e.dev.Agent().CreateQueue(64, hsa.QueueSingle, nil)
	}
	if err != nil {
		return nil, err
	}
	e.q = q
	return q, nil
}

// run submits one agent-dispatch packet after the pending work of the
// buffers it uses and waits for it. It takes part in the buffers'
// dependency tracking as a stream operation does, from any goroutine: it
// waits for their work (Settle), and is then recorded under a host fence
// (NewHostFence) that completes when its packet has, so that stream work
// recorded while it runs waits for it: a kernel launched on another
// goroutine does not write a buffer while it is copied out, nor read one
// while it is filled. Work recorded between the wait and the record is
// waited for too. With no work pending, the record is all it adds. ctx may end the wait for that work, and the wait for
// the engine, but never the packet: once it is submitted it runs to its
// end and run waits for it, since a copy abandoned midway would go on
// touching memory (the caller's slice) its caller has taken back. A run
// that gives up has submitted nothing and touched nothing; its error
// wraps gpu.ErrNotReady and ctx's error.
func (e *engine) run(ctx context.Context, op string, call aql.AgentCall, uses ...MemUse) error {
	if err := RefuseUnsafe(op); err != nil {
		return err // a synchronous copy or fill during a global capture
	}
	if annotate.On() {
		annotate.Push(op)
		defer annotate.Pop()
	}
	f, err := NewHostFence(e.dev.Agent())
	if err != nil {
		return errs.Wrap(op, err)
	}
	f.op = op
	var buf [2 * (1 + MaxReaders)]*Fence
	fs := buf[:0]
	for try := 0; ; try++ {
		var own *Fence
		var pending bool
		// Forced on the third try: a goroutine that keeps using the
		// buffers would otherwise hold the operation off for ever.
		fs, own, pending, err = useSync(op, f, uses, fs, try >= 2)
		if own != nil {
			// A host function's own queue's work: refused as Settle
			// refuses it, unless it completes at once.
			err := waitsForOwnQueue(op, firstMem(uses), own)
			own.Release()
			if err != nil {
				f.Cancel()
				f.Release()
				return err
			}
			continue
		}
		if err != nil || !pending {
			break
		}
		for _, u := range uses {
			if u.M != nil {
				if err := u.M.SettleContext(ctx, op); err != nil {
					f.Cancel()
					f.Release()
					if ctx.Err() != nil && errors.Is(err, gpu.ErrNotReady) {
						return notStarted(ctx, op)
					}
					return errs.Wrap(op, err)
				}
			}
		}
	}
	if err == nil && len(fs) > 0 {
		var first error
		if first, err = waitFences(ctx, op, firstMem(uses), fs); err == nil {
			err = first
		}
		if err != nil && ctx.Err() != nil && errors.Is(err, gpu.ErrNotReady) {
			// f stands for fs now: it completes after them.
			go func(fs []*Fence) {
				for _, w := range fs {
					_ = w.Wait(0)
					w.Release()
				}
				f.Cancel()
				f.Release()
			}(slices.Clone(fs))
			return notStarted(ctx, op)
		}
	}
	defer func() {
		releaseAll(fs)
		f.Cancel() // complete: work recorded after the operation may go on
		f.Release()
	}()
	if err != nil {
		return errs.Wrap(op, err)
	}
	err = e.submit(ctx, op, call, uses)
	if err == errNoQueue {
		root, err := engineOf(Root(e.dev))
		if err != nil {
			return errs.Wrap(op, err)
		}
		return root.submit(ctx, op, call, uses)
	}
	return err
}

// firstMem is the buffer of the first of uses that names one, for
// messages.
func firstMem(uses []MemUse) *Mem {
	for _, u := range uses {
		if u.M != nil {
			return u.M
		}
	}
	return nil
}

// notStarted is the error of a run that ctx ended before its packet.
func notStarted(ctx context.Context, op string) error {
	return &gpu.Error{Code: gpu.ErrNotReady, Op: op, Msg: "gave up before the copy started: nothing was copied", Err: ctx.Err()}
}

// errNoQueue is submit's answer when a view's engine has no queue and
// no slot left to make one.
var errNoQueue = errors.New("no queue slot")

// submit runs one packet on the engine's queue and waits for it.
func (e *engine) submit(ctx context.Context, op string, call aql.AgentCall, mems []MemUse) error {
	// One operation at a time, to its end: a packet that fails stops the
	// queue, and another caller's packet queued behind it would fail with
	// it; the next operation gets a new queue instead.
	if !e.lock(ctx) {
		return notStarted(ctx, op)
	}
	defer e.mu.Unlock()
	// The last moment to give up: from the submit on, the copy completes.
	if ctx.Err() != nil {
		return notStarted(ctx, op)
	}
	q, err := e.queue()
	if err != nil {
		if !e.reserved && errors.Is(err, hsa.ErrOutOfResources) {
			return errNoQueue
		}
		return errs.Wrap(op, err)
	}
	// A Device.Reset since the buffers were checked freed their memory,
	// which new buffers may hold by now: the queue's creation waited for
	// it, and a reset that starts from here on destroys the queue and
	// waits for its packet before it frees anything.
	if stale := staleOf(mems); stale != nil {
		return errs.Wrap(op, stale)
	}
	f, err := NewFence(q)
	if err != nil {
		return err
	}
	p := call.Packet(f.Signal().Handle())
	_, err = q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem))
	if err == nil {
		err = f.Wait(0)
	}
	f.Release()
	if err != nil {
		if stale := staleOf(mems); stale != nil {
			return errs.Wrap(op, stale) // a Device.Reset cancelled it
		}
	}
	return errs.Wrap(op, err)
}

// lock takes the engine, giving up when ctx is done first (another
// caller's operation holds it until that one ends). A context that can
// never be done waits as sync.Mutex.Lock does.
func (e *engine) lock(ctx context.Context) bool {
	if ctx.Done() == nil {
		e.mu.Lock()
		return true
	}
	for !e.mu.TryLock() {
		if ctx.Err() != nil {
			return false
		}
		time.Sleep(20 * time.Microsecond)
	}
	return true
}

// staleOf is the error of the first of mems that a Device.Reset made
// stale, or nil.
func staleOf(mems []MemUse) error {
	for _, u := range mems {
		m := u.M
		if m == nil {
			continue
		}
		if stale := Valid(m.home, m.gen); stale != nil {
			return stale
		}
	}
	return nil
}

// checkRange validates an element range [off, off+n) of m.
func checkRange(op string, m *Mem, off, n int) error {
	if off < 0 || n < 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "negative offset %d or count %d", off, n)
	}
	if off > m.n || n > m.n-off {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "elements [%d, %d) outside %s of %d elements", off, off+n, m, m.n)
	}
	return nil
}

// CopyHost copies between m's elements [off, off+n) and Go memory b.
func CopyHost(op string, m *Mem, off int, b []byte, toDevice bool) error {
	return CopyHostContext(context.Background(), op, m, off, b, toDevice)
}

// CopyHostContext is CopyHost that gives up when ctx is done while it
// waits for m's pending work (or for the engine), before the copy starts:
// then it has copied nothing, and b and m are as they were. Once the copy
// has started it completes. ctx done at the call gives up at once.
func CopyHostContext(ctx context.Context, op string, m *Mem, off int, b []byte, toDevice bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := m.Check(op); err != nil {
		return err
	}
	n := len(b) / m.esize
	if err := checkRange(op, m, off, n); err != nil {
		return err
	}
	if len(b) == 0 {
		return nil
	}
	if ctx.Err() != nil {
		return notStarted(ctx, op)
	}
	e, err := ownEngine(op, m)
	if err != nil {
		return err
	}
	id := hostref.PinHost(b)
	defer hostref.UnpinHost(id)
	addr := uint64(m.Addr() + uintptr(off*m.esize))
	if toDevice {
		return e.run(ctx, op, aql.CopyWork{Dst: addr, Src: id, Bytes: uint64(len(b)), Flags: aql.CopySrcHost}.Call(), MemUse{m, Write})
	}
	return e.run(ctx, op, aql.CopyWork{Dst: id, Src: addr, Bytes: uint64(len(b)), Flags: aql.CopyDstHost}.Call(), MemUse{m, Read})
}

// CopyMem copies n elements from src[srcOff:] to dst[dstOff:]. Memory of
// two devices is copied through pinned host memory.
func CopyMem(dst *Mem, dstOff int, src *Mem, srcOff int, n int) error {
	const op = "memcpy"
	if err := dst.Check(op); err != nil {
		return err
	}
	if err := src.Check(op); err != nil {
		return err
	}
	if dst.elem != src.elem {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "element types differ: %s and %s", dst.elem, src.elem)
	}
	if err := checkRange(op, dst, dstOff, n); err != nil {
		return err
	}
	if err := checkRange(op, src, srcOff, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	bytes := uint64(n * dst.esize)
	da := uint64(dst.Addr() + uintptr(dstOff*dst.esize))
	sa := uint64(src.Addr() + uintptr(srcOff*src.esize))
	// The copy runs on the agent that owns device memory (dst's unless
	// only src is device memory).
	dev := dst.Device()
	if dst.host && !src.host {
		dev = src.Device()
	}
	if dst.CheckAccess(op, dev) == nil && src.CheckAccess(op, dev) == nil {
		e, err := engineOf(dev)
		if err != nil {
			return errs.Wrap(op, err)
		}
		return e.run(context.Background(), op, aql.CopyWork{Dst: da, Src: sa, Bytes: bytes}.Call(), MemUse{dst, Write}, MemUse{src, Read})
	}
	// Across devices: stage through host memory.
	stage := make([]byte, bytes)
	if err := CopyHost(op, src, srcOff, stage, false); err != nil {
		return err
	}
	return CopyHost(op, dst, dstOff, stage, true)
}

// FillMem sets n elements from off to the element-sized pattern.
func FillMem(m *Mem, off, n int, pattern uint64, es int) error {
	const op = "memset"
	if err := m.Check(op); err != nil {
		return err
	}
	if err := checkRange(op, m, off*es/m.esize, n*es/m.esize); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	e, err := ownEngine(op, m)
	if err != nil {
		return err
	}
	addr := uint64(m.Addr() + uintptr(off*es))
	return e.run(context.Background(), op, aql.FillWork{Dst: addr, Pattern: pattern, Count: uint64(n), ElemSize: uint64(es)}.Call(), MemUse{m, Write})
}
