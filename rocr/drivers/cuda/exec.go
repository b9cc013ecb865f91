package cuda

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Layout of an executor's scratch page (mapped outside the Go heap, so the
// driver may read it during a call): the launch's extra array and size, the
// timestamp kernel's arguments, and a batch of two memory operations.
const (
	offExtra      = 0   // [5]uintptr
	offExtraSize  = 48  // uintptr
	offStampExtra = 64  // [5]uintptr
	offStampSize  = 112 // uintptr
	offStampArgs  = 128 // [3]uint64
	// cuLaunchKernelEx's CUlaunchConfig and its two attributes.
	offLaunchConfig = 256
	offLaunchAttrs  = 320
	scratchSize     = 4096
)

// executor turns one soft queue's packets into work on a CUDA stream. Its
// packet methods run with the queue's executor lock held: on the queue's
// processor goroutine, locked to an OS thread with the device's context
// current (BindThread), or inline on a submitter between Enter and Leave.
//
// Completion signals are lazy (spi.Completer): a packet's signal is not
// written by the GPU. The executor counts the packets that carry one and
// has the GPU write the count into its progress word only when somebody
// observes a signal (Flush); the host then completes every signal up to the
// count (Settle). A launch costs one driver call; a run of packets costs one
// write at the point where its result is needed.
type executor struct {
	dev     *device
	api     *api
	queue   spi.Queue
	stream  uintptr
	scratch uintptr
	ref     *spi.CompleterRef

	// progress is the word the GPU writes: the sequence number of the last
	// completion whose work is done.
	progress spi.HostSignal
	progDev  uintptr
	seq      uint64        // completions numbered so far (under the executor lock)
	issued   atomic.Uint64 // the last completion whose work is queued
	flushed  atomic.Uint64 // the last value a progress write was queued for
	settled  atomic.Uint64 // completions done on the host

	lazyMu sync.Mutex // guards ring and the records' queue
	ring   []deferred
	rhead  int
	rn     int

	// Event records in flight, oldest first: each holds a CUDA event of
	// its own (recEv[i] for slot i, created on first use), recorded where
	// the record stands in the stream. A host waiter learns that a record
	// passed from cuEventQuery of its event, and another stream waits for
	// it with cuStreamWaitEvent: no progress write per record.
	recSeq  [recSlots]uint64
	recEv   [recSlots]uintptr
	recHead int
	recN    int
	lastRec atomic.Uint64 // the completion of the newest record with an event
	wantRec atomic.Uint64 // the completion a waiter asked for (Flush) that a record covers

	flushMu sync.Mutex
	fsa     sysArgs // argument block for Flush, which runs on any goroutine
	event   uintptr // CUDA event recorded for other queues' barriers (0: none)
	// waitedOn and waitedSeq: the last other queue this stream waited for
	// and how far, so a second dependency on the same work costs nothing.
	waitedOn  *executor
	waitedSeq uint64
	evSeq     uint64 // the completion count the event's last record covers
	sigs      [16]spi.HostSignal
	// A wait's proof (under lazyMu): this stream waited on the GPU, after
	// its completion proofAt, for proofOn's work up to proofSeq. Once a
	// completion of this stream past proofAt is known done, so is that
	// work, and proofOn's signals up to proofSeq complete without a query
	// of their own (completeTo).
	proofOn  *executor
	proofSeq uint64
	proofAt  uint64

	sa      sysArgs // argument block for driver calls under the executor lock
	bound   bool
	noCtx   bool // inline, and the context is not yet current on this thread
	memops  bool // cuStreamWriteValue64/WaitValue64 work on signal memory
	profile bool // HIPGO_CUDA_PROFILE=1: timestamps on every packet with a completion signal
	tsOff   uint64
}

func (d *device) NewExecutor(q spi.Queue) (spi.Executor, error) {
	e := &executor{dev: d, api: d.api, queue: q, profile: os.Getenv("HIPGO_CUDA_PROFILE") == "1", ring: make([]deferred, 2*q.Size())}
	e.ref = spi.NewCompleterRef(e)
	var err error
	if e.scratch, err = spi.MapAnonymous(scratchSize); err != nil {
		return nil, err
	}
	if e.progress, err = host.NewSignal(0); err != nil {
		_ = spi.Unmap(e.scratch, scratchSize)
		return nil, err
	}
	e.progDev = devAddr(e.progress.Addr())
	*(*uintptr)(hostmem.At(e.scratch + offStampSize)) = 24
	*(*[5]uintptr)(hostmem.At(e.scratch + offStampExtra)) = [5]uintptr{launchParamBufferPtr, e.scratch + offStampArgs, launchParamBufferSize, e.scratch + offStampSize, launchParamEnd}
	*(*[5]uintptr)(hostmem.At(e.scratch + offExtra)) = [5]uintptr{launchParamBufferPtr, 0, launchParamBufferSize, e.scratch + offExtraSize, launchParamEnd}
	err = d.with(func() error {
		if r := res(purego.SyscallN(e.api.cuStreamCreate, uintptr(unsafe.Pointer(&e.stream)), streamNonBlocking)); r != cudaSuccess {
			return cuErr("queue create", "cuStreamCreate", r)
		}
		e.probe()
		if e.api.cuEventCreate != 0 && e.api.cuEventRecord != 0 && e.api.cuStreamWaitEvent != 0 {
			if r := res(purego.SyscallN(e.api.cuEventCreate, uintptr(unsafe.Pointer(&e.event)), eventDisableTiming)); r != cudaSuccess {
				e.event = 0
			}
		}
		return e.calibrate()
	})
	if err != nil {
		e.release()
		return nil, err
	}
	return e, nil
}

// CompletesSignals tells the processor that the executor completes every
// packet's completion signal itself (spi.AsyncExecutor).
func (e *executor) CompletesSignals() bool { return true }

// LocksThread: the processor runs with the context current on its locked
// OS thread.
func (e *executor) LocksThread() bool { return true }

// probe finds which stream memory operations work on signal memory, and
// checks that the values land where they should.
func (e *executor) probe() {
	a := e.api
	if a.cuStreamWriteValue64 == 0 || a.cuStreamWaitValue64 == 0 || e.progDev == 0 {
		return
	}
	p := e.progress
	ok := e.sa.call(a.cuStreamWriteValue64, e.stream, e.progDev, 5, 0) == cudaSuccess &&
		e.sa.call(a.cuStreamWaitValue64, e.stream, e.progDev, 5, streamWaitValueEQ) == cudaSuccess &&
		e.sa.call(a.cuStreamSynchronize, e.stream) == cudaSuccess && p.Load(hsa.Acquire) == 5
	p.Store(0, hsa.Release)
	if !ok {
		return
	}
	e.memops = true
}

// BindThread locks the processor goroutine to its thread and makes the
// context current there (spi.ThreadBinder). The processor calls it
// without the executor lock, while a submitter may be running a packet
// inline through e.sa: the call goes through a block of its own.
func (e *executor) BindThread() {
	runtime.LockOSThread()
	call(e.api.cuCtxSetCurrent, e.dev.ctx)
	e.bound = true
}

// Enter makes the context current on a submitter's thread for a packet run
// inline (spi.InlineExecutor); Leave lets the thread go.
func (e *executor) Enter() {
	runtime.LockOSThread()
	e.noCtx = true
}

func (e *executor) Leave() {
	e.noCtx = false
	runtime.UnlockOSThread()
}

// ctx makes the context current on an inline submitter's thread before
// the packet's first driver call; packets that need none (an event record
// without timing) skip it.
func (e *executor) ctx() {
	if e.noCtx {
		e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
		e.noCtx = false
	}
}

// Inline: dispatches, copies, fills and barriers that the GPU resolves do
// not block the caller; host callbacks and host-side barriers do.
func (e *executor) Inline(h aql.Header, slot unsafe.Pointer) bool {
	switch h.Type() {
	case aql.TypeKernelDispatch:
		return true
	case aql.TypeBarrierAnd:
		// A dependency whose queue has not yet queued its work is waited
		// for on the processor, not on the caller.
		if !e.memops {
			return false
		}
		for _, h := range (*aql.BarrierAnd)(slot).DepSignal {
			if h == 0 {
				continue
			}
			s, err := e.signal(h)
			if err != nil {
				return false
			}
			if c, seq := s.Deferred(); c != nil && seq == 0 && c != spi.Completer(e) {
				return false
			}
		}
		return true
	case aql.TypeAgentDispatch:
		p := (*aql.AgentDispatch)(slot)
		info, _ := aql.Code(p.Type)
		return info.Inline(p.Arg)
	}
	return false
}

// sync waits for the stream; error paths use it so no completion write of
// this queue is still in flight when the processor completes a signal. It
// polls, so that a stream waiting on a signal nobody will complete does not
// hold up the queue's destruction for more than a second.
func (e *executor) sync() error {
	e.ctx()
	var gave time.Time
	for i := 0; ; i++ {
		r := e.sa.call(e.api.cuStreamQuery, e.stream)
		if r == cudaSuccess {
			return nil
		}
		if r != cudaNotReady {
			return cuErr("queue", "cuStreamQuery", r)
		}
		if e.queue.Destroyed() {
			if gave.IsZero() {
				gave = time.Now()
			} else if time.Since(gave) > time.Second {
				return hsa.Errorf(hsa.StatusErrorInvalidQueue, "queue", "queue %d destroyed while its stream still waits on a signal", e.queue.ID())
			}
		}
		if i < 200 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

func (e *executor) fail(err error) error {
	serr := e.sync()
	e.drain(serr)
	if serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

var (
	_ spi.Poller         = (*executor)(nil)
	_ spi.Completer      = (*executor)(nil)
	_ spi.InlineExecutor = (*executor)(nil)
	_ spi.ThreadBinder   = (*executor)(nil)
)
