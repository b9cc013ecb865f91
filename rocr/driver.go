package rocr

import (
	"os"
	"sort"
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/aql"
)

// Driver provides agents of one kind. Drivers register themselves from an
// init function (the database/sql pattern) and are opened by Init.
type Driver interface {
	// Name is the driver's name: "cpu", "cuda", "rocm".
	Name() string
	// Priority orders drivers: higher opens first; the cpu driver is lowest.
	Priority() int
	// Open discovers the driver's agents. A driver that cannot run here
	// returns an error wrapping ErrNotSupported or ErrNoAgent that says why.
	Open() ([]AgentDriver, error)
	// Close releases the driver after all its agents are closed.
	Close() error
}

// AgentDriver is one agent as its driver sees it.
type AgentDriver interface {
	Info() AgentInfo
	// Pools lists the agent's memory pools.
	Pools() []PoolDriver
	// NewExecutor serves one soft queue: rocr owns the ring and its packet
	// processor, and the executor carries out each packet. Drivers with
	// hardware queues implement HardwareQueues instead and return
	// ErrNotSupported here.
	NewExecutor(q *Queue) (Executor, error)
	// Load loads code onto the agent.
	Load(code *Code) (Executable, error)
	// Close releases the agent at ShutDown.
	Close() error
}

// HardwareQueues is implemented by agent drivers whose queues are real
// hardware rings (rocm): rocr writes packets into them with the same code.
type HardwareQueues interface {
	CreateHardwareQueue(size uint32, typ QueueType) (HardwareQueue, error)
}

// HardwareQueue describes a driver-owned ring.
type HardwareQueue struct {
	Base       uintptr // ring of Size 64-byte slots
	Size       uint32
	WriteIndex *uint64
	ReadIndex  *uint64
	Doorbell   *Signal
	ID         uint64
	Destroy    func() error
}

// Executor carries out the packets of one soft queue, in order, on the
// queue's processor goroutine.
type Executor interface {
	// Dispatch runs or enqueues a kernel dispatch.
	Dispatch(q *Queue, p *KernelDispatchPacket) error
	// AgentWork runs or enqueues an agent-dispatch packet (a copy, fill
	// or host callback), decoded and checked by rocr.
	AgentWork(q *Queue, w *AgentWork) error
	// Barrier resolves a BARRIER_AND (or=false) or BARRIER_OR packet.
	Barrier(q *Queue, p *BarrierPacket, or bool) error
	// Close stops the executor when the queue is destroyed.
	Close() error
}

// Poller is implemented by asynchronous executors whose device reports
// failures of work in flight only when asked (a CUDA stream's sticky
// error): the idle processor calls Poll every millisecond. Poll completes
// the signals of the failed work with the error, so no waiter hangs, and
// returns it to fail the queue.
type Poller interface {
	Poll() error
}

// ThreadLocker is implemented by executors that lock the queue's processor
// goroutine to its OS thread (a CUDA context is current there).
type ThreadLocker interface {
	LocksThread() bool
}

// ThreadBinder is implemented by executors that prepare the processor
// goroutine once, before its first packet (lock the OS thread, make a
// context current there).
type ThreadBinder interface {
	BindThread()
}

// InlineExecutor is implemented by executors whose packets may be carried
// out on the submitting goroutine while the queue is idle, which saves the
// hop to the processor goroutine (a cuda launch is then one driver call on
// the caller's thread). HIPGO_INLINE_SUBMIT=0 turns it off.
type InlineExecutor interface {
	// Inline reports whether the packet can run on the caller without
	// blocking it.
	Inline(h aql.Header, slot unsafe.Pointer) bool
	// Enter prepares the calling goroutine for the executor's calls;
	// Leave undoes it.
	Enter()
	Leave()
}

func inlineEnabled() bool { return os.Getenv("HIPGO_INLINE_SUBMIT") != "0" }

// AsyncExecutor is implemented by executors that complete packets'
// completion signals themselves (a GPU writes them); for the others the
// processor completes them when the method returns.
type AsyncExecutor interface {
	CompletesSignals() bool
}

var registry struct {
	sync.Mutex
	drivers []Driver
}

// Register makes a driver available to Init. It is meant for init functions.
func Register(d Driver) {
	registry.Lock()
	defer registry.Unlock()
	for _, x := range registry.drivers {
		if x.Name() == d.Name() {
			return
		}
	}
	registry.drivers = append(registry.drivers, d)
	sort.SliceStable(registry.drivers, func(i, j int) bool {
		return registry.drivers[i].Priority() > registry.drivers[j].Priority()
	})
}

// Drivers lists the registered drivers' names, in the order Init opens them.
func Drivers() []string {
	registry.Lock()
	defer registry.Unlock()
	var out []string
	for _, d := range registry.drivers {
		out = append(out, d.Name())
	}
	return out
}

// SignalFactory is implemented by agents whose packets must carry the
// runtime's own signals (rocm: hsa_signal_t); rocr's soft signals serve
// every other agent.
type SignalFactory interface {
	NewSignal(initial int64) (SignalBackend, error)
}

// QueueErrorBinder is implemented by HardwareQueues drivers whose runtime
// reports queue errors asynchronously; fail makes the error the queue's
// sticky error.
type QueueErrorBinder interface {
	BindQueueErrors(id uint64, fail func(error))
}

// Copier is implemented by HardwareQueues agents, whose rings cannot run
// AGENT_DISPATCH packets (a GPU's): rocr decodes each copy and fill
// submitted to such a queue and hands it to the copy engine here, with a
// dependency signal the ring sets once the packets ahead are done and a
// completion signal the ring waits for before the packets after. deps are
// waited for to reach 0; done is decremented by 1 on completion (a failure
// is recorded with done.Fail first). Addresses lie in the driver's pool
// allocations: rocr stages Go memory. Without a Copier, copies and fills on
// hardware queues fail with ErrNotSupported; host callbacks still run.
type Copier interface {
	CopyAsync(dst, src uintptr, n uint64, deps []*Signal, done *Signal) error
	FillAsync(dst uintptr, pattern, count uint64, elemSize int, deps []*Signal, done *Signal) error
}

// OwnSignals reports whether the agent's packets must carry signals made
// by NewSignalFor (its runtime's own) rather than NewSignal's.
func (a *Agent) OwnSignals() bool {
	_, ok := a.drv.(SignalFactory)
	return ok
}

// NewSignalFor creates a signal that the agent's packets may carry.
func NewSignalFor(a *Agent, initial int64) (*Signal, error) {
	if err := a.check("signal create"); err != nil {
		return nil, err
	}
	if f, ok := a.drv.(SignalFactory); ok {
		b, err := f.NewSignal(initial)
		if err != nil {
			return nil, err
		}
		return NewSignalWithBackend(b), nil
	}
	return newSignal(initial)
}
