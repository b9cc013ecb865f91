package rocr

import (
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Queue is an HSA user-mode queue: a ring of 64-byte packet slots with
// 64-bit write and read indexes and a doorbell signal. Submission follows
// the HSA protocol: reserve a slot by atomic add on the write index, wait
// while the ring is full, write the body, publish the header with one
// release store, ring the doorbell. Any number of goroutines may submit to a
// hsa.QueueMulti queue at once.
type Queue struct {
	agent    *Agent
	typ      hsa.QueueType
	size     uint32
	mask     uint64
	base     uintptr
	writeIdx *uint64
	readIdx  *uint64
	doorbell *Signal
	kernarg  uintptr
	id       uint64
	reserved bool // in its agent's reserved slot (CreateReservedQueue)

	own struct { // storage for soft queues' indexes
		write uint64
		_     [56]byte
		read  uint64
	}

	// published gives the race detector the happens-before edge that the
	// header store gives the program: the ring lives in mapped memory the
	// detector does not see. Used only in race builds.
	published atomic.Uint64

	exec spi.Executor
	// work is the agent-dispatch packet being executed (under execMu);
	// a host callback abandoned while it runs keeps its own, and the
	// queue makes another.
	work atomic.Pointer[spi.AgentWork]
	hw   *hwAgentWork
	// execMu serializes the executor: the processor holds it for each
	// packet, a submitter that runs its packet inline holds it instead.
	execMu sync.Mutex
	inline spi.InlineExecutor
	// completer: the executor completes signals lazily (Expect).
	completer *spi.CompleterRef
	async     bool
	// lockedThread: the executor locks the processor to its OS thread, so
	// idle spins must not yield (that would cost a thread switch).
	lockedThread bool
	poller       spi.Poller
	onError      func(*Queue, error)

	// writers counts submitters between Reserve and Publish (Destroy).
	writers atomic.Int64

	// A kernel or host callback that never returns is abandoned
	// (abandon.go): executing is the id+1 of the kernel dispatch (on an
	// executor that can abandon kernels) or host callback the processor
	// runs (0: none),
	// abandoned counts the abandoned ones still running, grace bounds
	// Destroy's wait for a cancelled kernel.
	abandoner spi.Abandoner
	executing atomic.Uint64
	abandoned atomic.Int64
	grace     time.Duration

	errOnce sync.Once
	err     atomic.Pointer[error]
	closing atomic.Bool
	done    chan struct{}
	destroy func() error
	ringLen uintptr
	kaLen   uintptr
	kaAlloc *Allocation
	mu      sync.Mutex
	closed  bool
	debug   bool
	// inCallback is set while onError runs on the processor goroutine; a
	// Destroy then leaves the release to the processor (releaseOnExit)
	// instead of waiting for it, which would deadlock.
	inCallback    bool
	releaseOnExit bool
}

var queueIDs atomic.Uint64

// createQueueHook, set by tests, runs in CreateQueue between the queue's
// start and its tracking by the runtime.
var createQueueHook atomic.Pointer[func()]

// CreateQueue creates a queue of size slots (a power of two within the
// agent's limits) on the agent. onError, if not nil, receives asynchronous
// errors of the queue's packets once the queue has failed.
func (a *Agent) CreateQueue(size uint32, typ hsa.QueueType, onError func(*Queue, error)) (*Queue, error) {
	return a.createQueue(size, typ, onError, false)
}

// CreateReservedQueue is CreateQueue for the queue slot ReserveQueueSlot
// keeps: it fails only while another queue is in the slot (or, without
// a reservation, as CreateQueue does).
func (a *Agent) CreateReservedQueue(size uint32, typ hsa.QueueType, onError func(*Queue, error)) (*Queue, error) {
	return a.createQueue(size, typ, onError, true)
}

func (a *Agent) createQueue(size uint32, typ hsa.QueueType, onError func(*Queue, error), reserved bool) (*Queue, error) {
	if err := a.check("queue create"); err != nil {
		return nil, err
	}
	if size == 0 || bits.OnesCount32(size) != 1 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue create", "size %d is not a power of two", size)
	}
	if size < a.info.QueueMinSize || (a.info.QueueMaxSize != 0 && size > a.info.QueueMaxSize) {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "queue create", "size %d outside %s's limits [%d, %d]", size, a, a.info.QueueMinSize, a.info.QueueMaxSize)
	}
	if typ != hsa.QueueMulti && typ != hsa.QueueSingle {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidQueueCreation, "queue create", "unknown queue type %d", typ)
	}
	// A ShutDown or Reset that starts meanwhile waits for the queue to be
	// tracked, so that it destroys it.
	if err := a.rt.enter(a, "queue create"); err != nil {
		return nil, err
	}
	defer a.creating.Done()
	q := &Queue{agent: a, typ: typ, size: size, mask: uint64(size) - 1, onError: onError, done: make(chan struct{}), id: queueIDs.Add(1) - 1, reserved: reserved}
	q.debug = debugEnabled()
	grace, err := kernelGrace()
	if err != nil {
		return nil, err
	}
	q.grace = grace
	if hw, ok := a.drv.(spi.HardwareQueues); ok {
		h, err := hw.CreateHardwareQueue(size, typ)
		if err != nil {
			return nil, err
		}
		db, ok := h.Doorbell.(*Signal)
		if !ok {
			if h.Destroy != nil {
				_ = h.Destroy()
			}
			return nil, hsa.Errorf(hsa.StatusErrorInvalidQueueCreation, "queue create", "%s: hardware queue doorbell %T is not a rocr signal", a, h.Doorbell)
		}
		q.base, q.writeIdx, q.readIdx, q.doorbell, q.destroy = h.Base, h.WriteIndex, h.ReadIndex, db, h.Destroy
		q.id = h.ID
		close(q.done)
		if b, ok := a.drv.(spi.QueueErrorBinder); ok {
			b.BindQueueErrors(h.ID, q.fail)
		}
	} else {
		q.ringLen = uintptr(size) * aql.PacketSize
		base, err := spi.MapAnonymous(q.ringLen)
		if err != nil {
			return nil, err
		}
		q.base = base
		q.writeIdx, q.readIdx = &q.own.write, &q.own.read
		for i := uint32(0); i < size; i++ {
			*(*uint32)(hostmem.At(base + uintptr(i)*aql.PacketSize)) = uint32(aql.TypeInvalid)
		}
		q.doorbell = newDoorbell(-1)
	}
	if err := q.allocKernargs(); err != nil {
		q.release()
		return nil, err
	}
	if q.destroy == nil {
		exec, err := a.drv.NewExecutor(q)
		if err != nil {
			q.release()
			return nil, err
		}
		q.exec = exec
		if ae, ok := exec.(spi.AsyncExecutor); ok {
			q.async = ae.CompletesSignals()
		}
		if tl, ok := exec.(spi.ThreadLocker); ok {
			q.lockedThread = tl.LocksThread()
		}
		if p, ok := exec.(spi.Poller); ok {
			q.poller = p
		}
		if co, ok := exec.(spi.CompleterOf); ok {
			q.completer = co.CompleterRef()
		}
		if ab, ok := exec.(spi.Abandoner); ok {
			q.abandoner = ab
		}
		if ie, ok := exec.(spi.InlineExecutor); ok && inlineEnabled() {
			q.inline = ie
		}
		go q.process()
	}
	if h := createQueueHook.Load(); h != nil {
		(*h)()
	}
	if err := a.rt.track(q); err != nil {
		_ = q.Destroy()
		return nil, err
	}
	return q, nil
}

func (q *Queue) allocKernargs() error {
	q.kaLen = uintptr(q.size) * spi.KernargSlotSize
	if p, err := q.agent.Pool(hsa.SegmentGlobal, hsa.FlagKernargInit); err == nil {
		al, err := p.allocate(uint64(q.kaLen))
		if err != nil {
			return err
		}
		al.SetLabel(fmt.Sprintf("kernargs of queue %d", q.id))
		q.kaAlloc, q.kernarg = al, al.Base
		return nil
	}
	base, err := spi.MapAnonymous(q.kaLen)
	if err != nil {
		return err
	}
	q.kernarg = base
	return nil
}

func (q *Queue) release() {
	if q.destroy != nil {
		// A hardware queue may still be reading kernargs of packets in
		// flight: destroy it before freeing them.
		_ = q.destroy()
		q.destroy = func() error { return nil }
		if q.hw != nil {
			q.hw.release()
		}
	}
	if q.kaAlloc != nil {
		_ = q.kaAlloc.Free()
	} else if q.kernarg != 0 {
		_ = spi.Unmap(q.kernarg, q.kaLen)
	}
	q.kernarg = 0
	if q.destroy != nil {
		_ = q.destroy()
		return
	}
	if q.doorbell != nil {
		// The doorbell's record is not reused: a producer whose packet has
		// already run may still be ringing it.
		_ = q.doorbell.destroy(false)
	}
	if q.base != 0 {
		_ = spi.Unmap(q.base, q.ringLen)
		q.base = 0
	}
}

// Agent is the queue's agent.
func (q *Queue) Agent() *Agent { return q.agent }

// ID is the queue's identifier (HSA's queue id).
func (q *Queue) ID() uint64 { return q.id }

// Size is the number of slots.
func (q *Queue) Size() uint32 { return q.size }

// Type is the queue type.
func (q *Queue) Type() hsa.QueueType { return q.typ }

// Doorbell is the queue's doorbell signal.
func (q *Queue) Doorbell() *Signal { return q.doorbell }

// LoadWriteIndex reads the write index.
func (q *Queue) LoadWriteIndex() uint64 { return atomic.LoadUint64(q.writeIdx) }

// LoadReadIndex reads the read index.
func (q *Queue) LoadReadIndex() uint64 { return atomic.LoadUint64(q.readIdx) }

// AddWriteIndex reserves n slots and returns the first packet id.
func (q *Queue) AddWriteIndex(n uint64) uint64 { return atomic.AddUint64(q.writeIdx, n) - n }

// Slot is the address of packet id's slot.
func (q *Queue) Slot(id uint64) unsafe.Pointer {
	return hostmem.At(q.base + uintptr(id&q.mask)*aql.PacketSize)
}

// Kernarg is the address of packet id's kernarg area of spi.KernargSlotSize
// bytes; it is valid until the packet has been processed.
func (q *Queue) Kernarg(id uint64) uintptr {
	return q.kernarg + uintptr(id&q.mask)*spi.KernargSlotSize
}

// Err is the queue's sticky error: the first asynchronous failure.
func (q *Queue) Err() error {
	if p := q.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Destroy stops the queue (hsa_queue_destroy). Packets not yet processed
// are discarded; their completion signals are completed with an error so no
// waiter hangs. A packet processor blocked on a barrier gives up, and
// producers waiting for a free slot get an error. A kernel still running
// is cancelled; one that has not returned after the queue's KernelGrace is
// abandoned (Abandon), and Destroy returns an error wrapping hsa.ErrAbandoned
// that says so, the queue being destroyed all the same. Destroy may be called
// from the queue's error callback; the queue is then released when the
// callback returns.
func (q *Queue) Destroy() error {
	if q == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidQueue, "queue destroy", "nil queue")
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return hsa.Errorf(hsa.StatusErrorInvalidQueue, "queue destroy", "queue %d already destroyed", q.id)
	}
	q.closed = true
	q.closing.Store(true)
	if q.inCallback && q.destroy == nil {
		// The processor is running the error callback and sees closing
		// as soon as it returns.
		q.releaseOnExit = true
		q.mu.Unlock()
		return nil
	}
	q.mu.Unlock()
	// Writers between Reserve and Publish finish first, so the processor
	// drains (and fails) their packets and nothing writes into the ring
	// once it is unmapped. One that never publishes keeps the memory.
	published := q.waitWriters()
	var abandoned error
	if q.destroy == nil {
		q.doorbell.Store(-2, hsa.Release)
		abandoned = q.awaitProcessor()
	}
	q.agent.rt.untrack(q)
	if !published {
		return hsa.Errorf(hsa.StatusErrorInvalidQueue, "queue destroy", "queue %d: a packet reserved %v ago was never published; its ring stays mapped", q.id, writerGrace)
	}
	q.release()
	return abandoned
}

// writerGrace bounds how long Destroy waits for reserved packets.
const writerGrace = 2 * time.Second

// waitWriters waits until no submitter is between Reserve and Publish.
func (q *Queue) waitWriters() bool {
	deadline := time.Now().Add(writerGrace)
	for i := 0; q.writers.Load() > 0; i++ {
		if time.Now().After(deadline) {
			return false
		}
		if i < 100 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
	return true
}

// stopped runs when the packet processor exits.
func (q *Queue) stopped() {
	if q.exec != nil {
		_ = q.exec.Close()
	}
	q.mu.Lock()
	rel := q.releaseOnExit
	q.mu.Unlock()
	if rel {
		q.agent.rt.untrack(q)
		q.release()
	}
	close(q.done)
}

// Destroyed reports whether Destroy was called.
func (q *Queue) Destroyed() bool { return q.closing.Load() }

func (q *Queue) fail(err error) {
	if errors.Is(err, hsa.ErrDeviceLost) {
		q.agent.markLost(q, err)
	}
	first := false
	q.errOnce.Do(func() {
		q.err.Store(&err)
		first = true
	})
	if first && q.onError != nil {
		q.mu.Lock()
		q.inCallback = true
		q.mu.Unlock()
		defer func() {
			q.mu.Lock()
			q.inCallback = false
			q.mu.Unlock()
		}()
		q.onError(q, err)
	}
}
