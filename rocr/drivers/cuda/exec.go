package cuda

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
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
	scratchSize   = 4096
)

// deferred is a completion signal whose packet's work is queued on the
// stream: the host completes it once the progress counter reaches seq.
type deferred struct {
	sig *rocr.Signal
	seq uint64
	arm uint64 // sig.Armed() when deferred
}

// executor turns one soft queue's packets into work on a CUDA stream. Its
// packet methods run with the queue's executor lock held: on the queue's
// processor goroutine, locked to an OS thread with the device's context
// current (BindThread), or inline on a submitter between Enter and Leave.
//
// Completion signals are lazy (rocr.Completer): a packet's signal is not
// written by the GPU. The executor counts the packets that carry one and
// has the GPU write the count into its progress word only when somebody
// observes a signal (Flush); the host then completes every signal up to the
// count (Settle). A launch costs one driver call; a run of packets costs one
// write at the point where its result is needed.
type executor struct {
	dev     *device
	api     *api
	agent   *rocr.Agent
	queue   *rocr.Queue
	stream  uintptr
	scratch uintptr
	ref     *rocr.CompleterRef

	// progress is the word the GPU writes: the sequence number of the last
	// completion whose work is done.
	progress *rocr.Signal
	progDev  uintptr
	seq      uint64        // completions numbered so far (under the executor lock)
	issued   atomic.Uint64 // the last completion whose work is queued
	flushed  atomic.Uint64 // the last value a progress write was queued for
	settled  atomic.Uint64 // completions done on the host

	lazyMu sync.Mutex // guards ring
	ring   []deferred
	rhead  int
	rn     int

	flushMu sync.Mutex
	fsa     sysArgs // argument block for Flush, which runs on any goroutine
	event   uintptr // CUDA event recorded for other queues' barriers (0: none)
	// waitedOn and waitedSeq: the last other queue this stream waited for
	// and how far, so a second dependency on the same work costs nothing.
	waitedOn  *executor
	waitedSeq uint64
	evSeq     uint64 // the completion count the event's last record covers
	sigs      [16]*rocr.Signal

	sa      sysArgs // argument block for driver calls under the executor lock
	bound   bool
	noCtx   bool // inline, and the context is not yet current on this thread
	memops  bool // cuStreamWriteValue64/WaitValue64 work on signal memory
	profile bool // HIPGO_CUDA_PROFILE=1: timestamps on every packet with a completion signal
	tsOff   uint64
}

func (d *device) NewExecutor(q *rocr.Queue) (rocr.Executor, error) {
	e := &executor{dev: d, api: d.api, agent: q.Agent(), queue: q, profile: os.Getenv("HIPGO_CUDA_PROFILE") == "1", ring: make([]deferred, 2*q.Size())}
	e.ref = rocr.NewCompleterRef(e)
	var err error
	if e.scratch, err = rocr.MapAnonymous(scratchSize); err != nil {
		return nil, err
	}
	if e.progress, err = rocr.NewSignal(0); err != nil {
		_ = rocr.Unmap(e.scratch, scratchSize)
		return nil, err
	}
	e.progDev = devAddr(e.progress.Addr())
	*(*uintptr)(rocr.At(e.scratch + offStampSize)) = 24
	*(*[5]uintptr)(rocr.At(e.scratch + offStampExtra)) = [5]uintptr{launchParamBufferPtr, e.scratch + offStampArgs, launchParamBufferSize, e.scratch + offStampSize, launchParamEnd}
	*(*[5]uintptr)(rocr.At(e.scratch + offExtra)) = [5]uintptr{launchParamBufferPtr, 0, launchParamBufferSize, e.scratch + offExtraSize, launchParamEnd}
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
// packet's completion signal itself (rocr.AsyncExecutor).
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
		e.sa.call(a.cuStreamSynchronize, e.stream) == cudaSuccess && p.Load(rocr.Acquire) == 5
	p.Store(0, rocr.Release)
	if !ok {
		return
	}
	e.memops = true
}

// calibrate measures the offset between the GPU's %globaltimer and
// rocr.Now, so GPU-written timestamps read in rocr's clock.
func (e *executor) calibrate() error {
	best, off := ^uint64(0), uint64(0)
	e.tsOff = 0
	for i := 0; i < 3; i++ {
		e.progress.Store(0, rocr.Release)
		t0 := rocr.Now()
		if err := e.stamp(e.progress.Addr(), 0); err != nil {
			return err
		}
		if r := e.sa.call(e.api.cuStreamSynchronize, e.stream); r != cudaSuccess {
			return cuErr("queue create", "cuStreamSynchronize", r)
		}
		t1 := rocr.Now()
		if g := uint64(e.progress.Load(rocr.Acquire)); t1-t0 < best && g != 0 {
			best = t1 - t0
			off = g - (t0+t1)/2
		}
	}
	e.tsOff = off
	e.progress.Store(0, rocr.Release)
	return nil
}

// stamp launches the timestamp kernel writing to start and end (host
// addresses in signal memory; 0 skips).
func (e *executor) stamp(start, end uintptr) error {
	k := e.dev.stamp
	args := (*[3]uint64)(rocr.At(e.scratch + offStampArgs))
	args[0], args[1], args[2] = uint64(devAddr(start)), uint64(devAddr(end)), e.tsOff
	if start != 0 && args[0] == 0 || end != 0 && args[1] == 0 {
		return nil
	}
	if r := e.sa.call(e.api.cuLaunchKernel, k.fn, 1, 1, 1, 1, 1, 1, 0, e.stream, 0, e.scratch+offStampExtra); r != cudaSuccess {
		return cuErr("timestamp", "cuLaunchKernel", r)
	}
	return nil
}

// BindThread locks the processor goroutine to its thread and makes the
// context current there (rocr.ThreadBinder).
func (e *executor) BindThread() {
	runtime.LockOSThread()
	e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	e.bound = true
}

// Enter makes the context current on a submitter's thread for a packet run
// inline (rocr.InlineExecutor); Leave lets the thread go.
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
		for _, h := range (*rocr.BarrierPacket)(slot).DepSignal {
			if h == 0 {
				continue
			}
			s, err := e.signal(h)
			if err != nil {
				return false
			}
			if c, seq := s.Deferred(); c != nil && seq == 0 && c != rocr.Completer(e) {
				return false
			}
		}
		return true
	case aql.TypeAgentDispatch:
		// A copy from or to pageable host memory returns only once the
		// copy is staged or done, which may wait for earlier work.
		p := (*rocr.AgentDispatchPacket)(slot)
		return p.Type == rocr.AgentFill || p.Type == rocr.AgentCopy && p.Arg[3]&(rocr.CopyDstHost|rocr.CopySrcHost) == 0
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
				return rocr.Errorf(rocr.StatusErrorInvalidQueue, "queue", "queue %d destroyed while its stream still waits on a signal", e.queue.ID())
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

// complete has the host complete signal h once the work queued so far is
// done: the signal is deferred to the progress count (no driver call).
func (e *executor) complete(h uint64) error {
	if h == 0 {
		return nil
	}
	s, err := e.signal(h)
	if err != nil {
		return e.fail(err)
	}
	if !e.memops || e.progDev == 0 {
		// No GPU write possible: wait for the stream, complete on the host.
		if err := e.sync(); err != nil {
			return err
		}
		s.Sub(1, rocr.Release)
		return nil
	}
	e.lazyMu.Lock()
	if e.rn == len(e.ring) {
		// Every slot holds a signal nobody has observed: let the stream
		// catch up, which completes them all.
		e.lazyMu.Unlock()
		if err := e.sync(); err != nil {
			return e.fail(err)
		}
		e.drain(nil)
		e.lazyMu.Lock()
	}
	e.seq++
	e.ring[(e.rhead+e.rn)%len(e.ring)] = deferred{sig: s, seq: e.seq, arm: s.Armed()}
	e.rn++
	e.lazyMu.Unlock()
	e.issued.Store(e.seq)
	s.Defer(e.ref, e.seq)
	return nil
}

// Flush queues a write of the progress count that covers seq, unless one
// is queued already (rocr.Completer). It runs on any goroutine, beside
// the executor's own calls: the value written is the count of work queued
// before the write.
func (e *executor) Flush(seq uint64) {
	if e.flushed.Load() >= seq {
		return
	}
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	v := e.issued.Load()
	if e.flushed.Load() >= seq || v < seq || e.stream == 0 {
		return
	}
	runtime.LockOSThread()
	e.fsa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	r := e.fsa.call(e.api.cuStreamWriteValue64, e.stream, e.progDev, uintptr(v), 0)
	runtime.UnlockOSThread()
	if r == cudaSuccess {
		e.flushed.Store(v)
	}
}

// awaitIssue waits on the host until the queue named by dependency s's
// completer has queued the work that completes s, or s completed. It gives
// up when this queue is destroyed.
func (e *executor) awaitIssue(s *rocr.Signal, i int) (rocr.Completer, uint64, error) {
	for n := 0; ; n++ {
		c, seq := s.Deferred()
		if c == nil || seq != 0 || s.Load(rocr.Acquire) <= 0 {
			return c, seq, nil
		}
		if e.queue.Destroyed() {
			return nil, 0, rocr.Errorf(rocr.StatusErrorInvalidQueue, "barrier", "queue %d destroyed while dependency %d waited to be submitted", e.queue.ID(), i)
		}
		if n < 1000 {
			runtime.Gosched()
		} else {
			time.Sleep(20 * time.Microsecond)
		}
	}
}

// waitEvent makes b's stream wait for e's work up to completion seq with
// CUDA's own event (cuEventRecord on e, cuStreamWaitEvent on b), the
// fastest cross-stream edge the driver has. One event serves every
// waiter: a wait binds to the record current at the call, and a later
// record only covers more. It reports false when e has no event.
func (e *executor) waitEvent(b *executor, seq uint64) (bool, error) {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	if e.event == 0 || e.stream == 0 {
		return false, nil
	}
	if e.evSeq < seq {
		v := e.issued.Load()
		if v < seq {
			return false, nil
		}
		if r := b.sa.call(e.api.cuEventRecord, e.event, e.stream); r != cudaSuccess {
			return false, cuErr("barrier", "cuEventRecord", r)
		}
		e.evSeq = v
	}
	if r := b.sa.call(e.api.cuStreamWaitEvent, b.stream, e.event, 0); r != cudaSuccess {
		return false, cuErr("barrier", "cuStreamWaitEvent", r)
	}
	return true, nil
}

// awaitArgs are argument blocks for Await, which may run on several
// goroutines at once and blocks in the driver.
var awaitArgs = sync.Pool{New: func() any { return new(sysArgs) }}

// Await synchronizes the stream on the caller's thread when seq is the
// last completion queued (a Synchronize of the stream's tail): the
// driver's own wait, as a native program does, instead of a progress write
// and a poll. For an earlier packet, which the stream may be far past, it
// declines (rocr.Completer).
func (e *executor) Await(seq uint64) bool {
	v := e.issued.Load()
	if seq != v || e.settled.Load() >= seq {
		return false
	}
	sa := awaitArgs.Get().(*sysArgs)
	defer awaitArgs.Put(sa)
	e.flushMu.Lock()
	stream := e.stream
	e.flushMu.Unlock()
	if stream == 0 {
		return false
	}
	runtime.LockOSThread()
	sa.call(e.api.cuCtxSetCurrent, e.dev.ctx)
	r := sa.call(e.api.cuStreamSynchronize, stream)
	runtime.UnlockOSThread()
	if r != cudaSuccess {
		return false // the poller reports the failure and completes the signals
	}
	e.lazyMu.Lock()
	e.completeUpTo(v, nil)
	e.lazyMu.Unlock()
	return true
}

// CompleterRef is what the executor's signals carry (rocr.CompleterOf).
func (e *executor) CompleterRef() *rocr.CompleterRef { return e.ref }

// Settle completes the deferred signals whose work the progress count
// says is done (rocr.Completer).
func (e *executor) Settle() { e.settle() }

func (e *executor) settle() {
	p := uint64(e.progress.Load(rocr.Acquire))
	if p <= e.settled.Load() {
		return
	}
	e.lazyMu.Lock()
	e.completeUpTo(p, nil)
	e.lazyMu.Unlock()
}

// completeUpTo completes deferred signals up to seq p, failed with err if
// not nil. The caller holds lazyMu.
func (e *executor) completeUpTo(p uint64, err error) {
	for e.rn > 0 && e.ring[e.rhead].seq <= p {
		d := &e.ring[e.rhead]
		s, arm := d.sig, d.arm
		*d = deferred{}
		e.rhead = (e.rhead + 1) % len(e.ring)
		e.rn--
		if s.Armed() != arm {
			continue // re-armed since: this completion is no longer awaited
		}
		s.Undefer()
		if err != nil {
			s.Fail(err)
		}
		s.Sub(1, rocr.Release)
	}
	if p > e.settled.Load() {
		e.settled.Store(p)
	}
}

// drain completes every deferred signal once the stream is idle (after
// sync), failed with err if the stream failed.
func (e *executor) drain(err error) {
	e.lazyMu.Lock()
	e.completeUpTo(e.issued.Load(), err)
	e.lazyMu.Unlock()
}

// signal is rocr.SignalFromHandle through a small cache, which keeps the
// launch path free of the lookup's allocation. A cached signal that was
// destroyed is looked up again (its handle may name a new signal).
func (e *executor) signal(h uint64) (*rocr.Signal, error) {
	c := &e.sigs[h>>6%uint64(len(e.sigs))]
	if s := *c; s != nil && s.Handle() == h && !s.Destroyed() {
		return s, nil
	}
	s, err := rocr.SignalFromHandle(h)
	if err == nil {
		*c = s
	}
	return s, err
}

// completeHost completes signal h on the host once the stream is idle.
func completeHost(h uint64) {
	if h == 0 {
		return
	}
	if s, err := rocr.SignalFromHandle(h); err == nil {
		s.SetTimestamps(rocr.Now(), rocr.Now())
		s.Sub(1, rocr.Release)
	}
}

// stampAround launches the timestamp kernel before (end=false) or after
// a profiled packet.
func (e *executor) stampAround(h uint64, end bool) error {
	if !e.profile || h == 0 {
		return nil
	}
	s, err := e.signal(h)
	if err != nil || s.Addr() == 0 {
		return nil
	}
	if end {
		return e.stamp(0, s.Addr()+32)
	}
	return e.stamp(s.Addr()+24, 0)
}

func (e *executor) KernelName(obj uint64) string {
	if k := lookupKernel(obj); k != nil {
		return k.name
	}
	return "unknown"
}

func (e *executor) Dispatch(q *rocr.Queue, p *rocr.KernelDispatchPacket) error {
	e.ctx()
	k := lookupKernel(p.KernelObject)
	if k == nil {
		return e.fail(rocr.Errorf(rocr.StatusErrorInvalidCodeSymbol, "dispatch", "kernel object %#x is not a loaded cuda kernel", p.KernelObject))
	}
	block := [3]uint32{uint32(p.WorkgroupSizeX), uint32(p.WorkgroupSizeY), uint32(p.WorkgroupSizeZ)}
	grid := [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
	for i := range block {
		if block[i] == 0 || grid[i] == 0 || grid[i]%block[i] != 0 {
			return e.fail(rocr.Errorf(rocr.StatusErrorInvalidArgument, "dispatch", "kernel %s: grid %v work-items is not a whole number of %v blocks (CUDA launches whole blocks)", k.name, grid, block))
		}
		grid[i] /= block[i]
	}
	if t := block[0] * block[1] * block[2]; t > k.maxThreads {
		return e.fail(rocr.Errorf(rocr.StatusErrorInvalidArgument, "dispatch", "kernel %s: block of %d threads exceeds its limit of %d", k.name, t, k.maxThreads))
	}
	if p.GroupSegmentSize < k.static {
		return e.fail(rocr.Errorf(rocr.StatusErrorInvalidArgument, "dispatch", "kernel %s: group segment of %d bytes is smaller than its static %d bytes", k.name, p.GroupSegmentSize, k.static))
	}
	dyn := p.GroupSegmentSize - k.static
	if dyn > k.dynLimit.Load() {
		if err := e.allowDynamic(k, dyn); err != nil {
			return e.fail(err)
		}
	}
	var extra uintptr
	if k.argEnd > 0 {
		if p.KernargAddress == 0 {
			return e.fail(rocr.Errorf(rocr.StatusErrorInvalidArgument, "dispatch", "kernel %s: null kernarg address", k.name))
		}
		if err := rocr.CheckBufferArgs(e.agent, k.name, uintptr(p.KernargAddress), k.buffers, nil); err != nil {
			return e.fail(err)
		}
		*(*uintptr)(rocr.At(e.scratch + offExtra + 8)) = uintptr(p.KernargAddress)
		*(*uintptr)(rocr.At(e.scratch + offExtraSize)) = uintptr(k.argEnd)
		extra = e.scratch + offExtra
	}
	if err := e.stampAround(p.CompletionSignal, false); err != nil {
		return e.fail(err)
	}
	if r := e.sa.call(e.api.cuLaunchKernel, k.fn, uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]), uintptr(block[0]), uintptr(block[1]), uintptr(block[2]), uintptr(dyn), e.stream, 0, extra); r != cudaSuccess {
		return e.fail(cuErr("dispatch", fmt.Sprintf("kernel %s grid %v block %v shared %d: cuLaunchKernel", k.name, grid, block, dyn), r))
	}
	if err := e.stampAround(p.CompletionSignal, true); err != nil {
		return e.fail(err)
	}
	return e.complete(p.CompletionSignal)
}

// allowDynamic raises a kernel's dynamic shared memory limit (needed above
// 48 KiB).
func (e *executor) allowDynamic(k *kernel, n uint32) error {
	if e.api.cuFuncSetAttribute == 0 || int(n)+int(k.static) > e.dev.info.MaxDynamicGroup {
		return rocr.Errorf(rocr.StatusErrorInvalidArgument, "dispatch", "kernel %s: %d bytes of dynamic shared memory exceed the device's %d", k.name, n, e.dev.info.MaxDynamicGroup-int(k.static))
	}
	if r := e.sa.call(e.api.cuFuncSetAttribute, k.fn, funcAttrMaxDynamicSharedMem, uintptr(n)); r != cudaSuccess {
		return rocr.Errorf(r.status(), "dispatch", "kernel %s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d): %v", k.name, n, r)
	}
	k.dynLimit.Store(n)
	return nil
}

// FailPacket settles the stream before a packet that rocr rejects fails,
// so no completion of earlier work lands after its signal
// (rocr.PacketFailer).
func (e *executor) FailPacket(err error) error {
	e.ctx()
	return e.fail(err)
}

// AgentWork queues a copy or fill on the stream, runs a native call with
// the stream, or runs a host callback once the stream has drained.
func (e *executor) AgentWork(q *rocr.Queue, w *rocr.AgentWork) error {
	e.ctx()
	switch w.Kind {
	case rocr.AgentCopy:
		if w.Size > 0 {
			// Unified addressing: one call for every direction. Pageable
			// sources are staged at the call and pageable destinations are
			// written before it returns, so stream order holds for them.
			if r := e.sa.call(e.api.cuMemcpyAsync, w.Dst.Ptr(), w.Src.Ptr(), uintptr(w.Size), e.stream); r != cudaSuccess {
				return e.fail(cuErr("copy", "cuMemcpyAsync", r))
			}
		}
	case rocr.AgentFill:
		if err := e.fill(w); err != nil {
			return e.fail(err)
		}
	case rocr.AgentRect:
		if err := e.rect(w.Rect); err != nil {
			return e.fail(err)
		}
	case rocr.AgentCallback:
		// Host callbacks run here, after the stream drains: no callback from a
		// CUDA thread into Go is needed.
		if err := e.sync(); err != nil {
			return err
		}
		if err := w.RunHost(0); err != nil {
			return err
		}
		completeHost(w.Completion)
		return nil
	case rocr.AgentNative:
		// A library call that queues its work on this stream, with the
		// context current: stream order holds without draining.
		if err := w.RunHost(e.stream); err != nil {
			return e.fail(err)
		}
	default:
		return e.fail(rocr.Errorf(rocr.StatusErrorInvalidPacketFormat, "agent dispatch", "unknown function code %#x", w.Kind))
	}
	if err := e.stampAround(w.Completion, true); err != nil {
		return e.fail(err)
	}
	return e.complete(w.Completion)
}

func (e *executor) fill(w *rocr.AgentWork) error {
	if w.Size == 0 {
		return nil
	}
	dst, es, pattern := uint64(w.Dst.Addr), uint64(w.ElemSize), w.Pattern
	if dst%es != 0 {
		return rocr.Errorf(rocr.StatusErrorInvalidArgument, "fill", "destination %#x is not aligned to the %d-byte element", dst, es)
	}
	a := e.api
	d, c := uintptr(dst), uintptr(w.Count)
	var r cuResult
	switch es {
	case 1:
		r = e.sa.call(a.cuMemsetD8Async, d, uintptr(uint8(pattern)), c, e.stream)
	case 2:
		r = e.sa.call(a.cuMemsetD16Async, d, uintptr(uint16(pattern)), c, e.stream)
	case 4:
		r = e.sa.call(a.cuMemsetD32Async, d, uintptr(uint32(pattern)), c, e.stream)
	case 8:
		lo, hi := uintptr(uint32(pattern)), uintptr(uint32(pattern>>32))
		if lo == hi {
			r = e.sa.call(a.cuMemsetD32Async, d, lo, 2*c, e.stream)
			break
		}
		// Two strided 32-bit fills: the low words, then the high words, as
		// a 2D memset of one element per 8-byte row.
		if r = e.sa.call(a.cuMemsetD2D32Async, d, 8, lo, 1, c, e.stream); r == cudaSuccess {
			r = e.sa.call(a.cuMemsetD2D32Async, d+4, 8, hi, 1, c, e.stream)
		}
	}
	if r != cudaSuccess {
		return cuErr("fill", "cuMemset", r)
	}
	return nil
}

// Barrier resolves BARRIER_AND on the GPU: the stream waits until each
// dependency's value in signal memory is 0. BARRIER_OR, and dependencies a
// GPU cannot see, are waited for here on the host.
func (e *executor) Barrier(q *rocr.Queue, p *rocr.BarrierPacket, or bool) error {
	if or || !e.memops {
		if err := rocr.WaitBarrier(p, or); err != nil {
			return e.fail(err)
		}
	} else {
		for i, h := range p.DepSignal {
			if h == 0 {
				continue
			}
			s, err := e.signal(h)
			if err != nil {
				return e.fail(rocr.Errorf(rocr.StatusErrorInvalidSignal, "barrier", "dependency %d: %w", i, err))
			}
			c, seq := s.Deferred()
			if c != nil && c != rocr.Completer(e) && seq == 0 {
				// Its queue has not queued the work yet: wait until it has
				// (or the signal completed some other way).
				if c, seq, err = e.awaitIssue(s, i); err != nil {
					return e.fail(err)
				}
				if seq == 0 {
					c = nil // completed without being queued (its packet failed)
				}
			}
			if c != nil {
				if c == rocr.Completer(e) {
					continue // an earlier packet of this stream: in order already
				}
				if o, ok := c.(*executor); ok && o.memops && o.progDev != 0 {
					if e.waitedOn == o && e.waitedSeq >= seq {
						continue
					}
					e.ctx()
					if o.dev.ctx == e.dev.ctx {
						ok, err := o.waitEvent(e, seq)
						if err != nil {
							return e.fail(err)
						}
						if ok {
							e.waitedOn, e.waitedSeq = o, seq
							continue
						}
					}
					// The other queue's progress word (in portable pinned
					// memory, so another device's too): one GPU wait, no
					// host round trip.
					o.Flush(seq)
					if o.dev.ctx != e.dev.ctx {
						e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx) // the flush made o's current
					}
					if r := e.sa.call(e.api.cuStreamWaitValue64, e.stream, o.progDev, uintptr(seq), streamWaitValueGEQ); r != cudaSuccess {
						return e.fail(cuErr("barrier", "cuStreamWaitValue64", r))
					}
					e.waitedOn, e.waitedSeq = o, seq
					continue
				}
				c.Flush(seq)
				e.ctx()
				e.sa.call(e.api.cuCtxSetCurrent, e.dev.ctx) // a flush may have made another context current
			}
			if s.Load(rocr.Acquire) == 0 {
				// Already satisfied: its producer's failure, if any, is known.
				if ferr := s.Err(); ferr != nil {
					return e.fail(rocr.Errorf(rocr.StatusOf(ferr), "barrier", "dependency failed: %w", ferr))
				}
				continue
			}
			dev := devAddr(s.Addr())
			if dev == 0 {
				var one rocr.BarrierPacket
				one.DepSignal[0] = h
				if err := rocr.WaitBarrier(&one, false); err != nil {
					return e.fail(err)
				}
				continue
			}
			e.ctx()
			if r := e.sa.call(e.api.cuStreamWaitValue64, e.stream, dev, 0, streamWaitValueEQ); r != cudaSuccess {
				return e.fail(cuErr("barrier", "cuStreamWaitValue64", r))
			}
		}
	}
	if h := p.CompletionSignal; h != 0 {
		// A barrier with a completion signal is an event record: it always
		// carries the GPU time at which it passed.
		if s, err := e.signal(h); err == nil && s.Addr() != 0 && s.WantsTimestamps() {
			e.ctx()
			if err := e.stamp(s.Addr()+24, s.Addr()+32); err != nil {
				return e.fail(err)
			}
		}
	}
	return e.complete(p.CompletionSignal)
}

// Close waits for the stream's work and releases the stream. It runs on the
// processor goroutine as the queue is destroyed.
func (e *executor) Close() error {
	var err error
	if e.bound {
		err = e.destroyStream()
		runtime.UnlockOSThread()
		e.bound = false
	} else {
		err = e.dev.with(e.destroyStream)
	}
	return errors.Join(err, e.release())
}

func (e *executor) destroyStream() error {
	if e.stream == 0 {
		return nil
	}
	err := e.sync()
	e.drain(err)
	if r := e.sa.call(e.api.cuStreamDestroy, e.stream); r != cudaSuccess {
		err = errors.Join(err, cuErr("queue destroy", "cuStreamDestroy", r))
	}
	e.flushMu.Lock()
	e.stream = 0
	if e.event != 0 {
		e.sa.call(e.api.cuEventDestroy, e.event)
		e.event = 0
	}
	e.flushMu.Unlock()
	return err
}

func (e *executor) release() error {
	var errs []error
	if e.stream != 0 {
		errs = append(errs, e.dev.with(e.destroyStream))
	}
	if e.progress != nil {
		errs = append(errs, e.progress.Destroy())
		e.progress = nil
	}
	if e.scratch != 0 {
		errs = append(errs, rocr.Unmap(e.scratch, scratchSize))
		e.scratch = 0
	}
	return errors.Join(errs...)
}

// Poll runs on the processor goroutine every millisecond while the queue
// is idle: it flushes the progress count so that signals nobody waits on
// still complete, and reports an asynchronous failure of the work in
// flight (a kernel that faulted: CUDA makes the error sticky and the
// progress write never lands). On a failure it completes every deferred
// signal with the error, so no waiter hangs, and returns it to fail the
// queue.
func (e *executor) Poll() error {
	if !e.bound || !e.memops {
		return nil
	}
	issued := e.issued.Load()
	e.Flush(issued)
	e.settle()
	if e.settled.Load() >= issued {
		return nil
	}
	r := e.sa.call(e.api.cuStreamQuery, e.stream)
	if r == cudaSuccess || r == cudaNotReady {
		return nil
	}
	err := cuErr("stream", "work in flight failed: cuStreamQuery", r)
	e.lazyMu.Lock()
	e.completeUpTo(issued, err)
	e.lazyMu.Unlock()
	return err
}

var (
	_ rocr.Poller         = (*executor)(nil)
	_ rocr.Completer      = (*executor)(nil)
	_ rocr.InlineExecutor = (*executor)(nil)
	_ rocr.ThreadBinder   = (*executor)(nil)
)
