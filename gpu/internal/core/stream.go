package core

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Stream is the submitter behind a gpu/stream.Stream: one AQL queue, the
// Lock that orders submissions, the tail fence, the in-flight packets and
// what they hold (queueState), and how its packets order against other
// streams. gpu/stream.Stream is defined on it, so the packages above
// reach a stream's submitter by converting: (*core.Stream)(s). Methods of
// queueState are unexported, since embedding promotes them to that type.
type Stream struct {
	// queueState is allocated apart from the Stream, so that the backstop
	// of a stream dropped undestroyed (streamleak.go) can release it without
	// keeping the Stream reachable.
	*queueState
	self
	dev *gpu.Device
	gen uint64 // dev's reset count when the stream was made

	launch Launch
	// ref is the stream as its device's sets hold it: weakly
	// (streamleak.go); backstop releases it if the Stream becomes
	// unreachable undestroyed.
	ref      *streamRef
	backstop runtime.Cleanup

	isDefault bool
	// captureDestroyed: the stream was destroyed while a capture begun on
	// it was running, which EndCapture reports.
	captureDestroyed atomic.Bool

	order   Order       // how dependencies across streams are handled
	seq     uint64      // fences made, for ordered()
	waited  [8]waitMark // the latest fence of each queue this stream waited for
	nwaited int

	// The legacy default stream (legacy.go): leg is the device's state,
	// nil for a non-blocking stream; legHeld how the submission in
	// progress holds its lock (under mu); legSeen the legacy submission
	// this stream last waited for (under mu).
	leg     *legacyState
	legacy  bool
	legHeld uint8
	legSeen uint64

	// What the program made the stream with, kept for it to report.
	flags    uint32
	priority int
}

// self lets StreamOf find the submitter of a *gpu/stream.Stream held in
// an interface: embedding promotes its method to that type, which is
// defined on Stream, and no type outside core can have it.
type self struct{ s *Stream }

func (x self) submitter() *Stream { return x.s }

// StreamOf is the submitter of s when it is a *gpu/stream.Stream made by
// New (the buffer package's Stream, which cannot name that type); nil
// for anything else and for a nil stream. Where the type is known, convert:
// (*core.Stream)(s).
func StreamOf(s any) *Stream {
	h, ok := s.(interface{ submitter() *Stream })
	if v := reflect.ValueOf(h); !ok || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return h.submitter()
}

// SetAttributes records the flags and priority the stream was made with.
func (s *Stream) SetAttributes(flags uint32, priority int) { s.flags, s.priority = flags, priority }

// Attributes are the flags and priority the stream was made with.
func (s *Stream) Attributes() (flags uint32, priority int) { return s.flags, s.priority }

// queueState is what a stream's queue and packets hold: everything the
// backstop releases.
type queueState struct {
	q *rocr.Queue

	mu    sync.Mutex
	tail  *Fence  // last packet submitted; every packet has a fence
	ring  []entry // in-flight packets, oldest first
	head  int
	count int
	err   atomic.Pointer[error]
	// reported: err was returned to the program; buffers the failed work
	// used then settle without returning it again.
	reported atomic.Bool
	// checks counts in-flight entries with a completion check
	// (Dispatch.Check), which Synchronize and Query run before they report.
	checks atomic.Int32
	closed bool
	fences FenceCache                 // used under mu
	areas  [areaClasses][]kernargArea // kernarg areas for reuse, under mu (see kernarg.go)
	// onDestroy runs once the stream is destroyed (OnDestroy), under mu.
	onDestroy []func()

	printf atomic.Pointer[printfBuf] // see printf.go; nil until a kernel takes one

	// legTail is the stream's last packet the legacy stream has not
	// waited for yet (legacy.go), under legTailMu.
	legTailMu sync.Mutex
	legTail   *Fence
}

// SetOrder sets how the stream handles dependencies across streams
// (HIPGO_CHECK_DEPS=1 makes Check the default).
func (s *Stream) SetOrder(o Order) { s.order = o }

// newFence is a fence for the stream's next packet, the operation op; s
// is locked.
func (s *Stream) newFence(op string) (*Fence, error) {
	f, err := s.fences.New(s.q)
	if err != nil {
		return nil, err
	}
	s.seq++
	f.op, f.seq, f.acc, f.stream = op, s.seq, 0, s.queueState
	return f, nil
}

// entry is one in-flight packet and what it holds until it completes.
type entry struct {
	fence *Fence
	deps  [aql.MaxBarrierDeps]*Fence
	ndeps int
	pin   uint64       // host slice pinned for a copy
	check func() error // run once the packet completed (Dispatch.Check)
	area  kernargArea  // the kernarg image of a dispatch past a queue slot
}

// Init creates the stream's queue of size packets on dev.
func (s *Stream) Init(dev *gpu.Device, size uint32) error {
	s.queueState = &queueState{ring: make([]entry, 2*size)}
	s.dev, s.gen = dev, Gen(dev)
	q, err := dev.Agent().CreateQueue(size, hsa.QueueMulti, s.queueState.onError)
	if err != nil {
		return err
	}
	s.q = q
	s.launch.s = s
	s.self = self{s}
	if debug.CheckDeps() {
		s.order = Check
	}
	s.track()
	return nil
}

// MarkDefault makes s its device's default stream, which only gpu.Shutdown
// destroys.
func (s *Stream) MarkDefault() { s.isDefault = true }

// DestroyDefault destroys the default stream (at Shutdown).
func (s *Stream) DestroyDefault() error {
	_, err := s.destroy() // a capture it ended: Shutdown has no one to tell
	return err
}

func (s *queueState) onError(_ *rocr.Queue, err error) { s.fail(err) }

// fail makes err the stream's sticky error unless it has one.
func (s *queueState) fail(err error) {
	if err == nil || s.err.Load() != nil {
		return
	}
	e := errs.Wrap("stream", err)
	s.err.CompareAndSwap(nil, &e)
}

// FailedBy records the failure of a completed fence as the sticky error.
// The queue's own error, when it has one, is the first failure; the
// fence's may be a later packet's "not run" that wraps it.
func (s *Stream) FailedBy(f *Fence) {
	err := f.Err()
	if err == nil {
		return
	}
	if qerr := s.q.Err(); qerr != nil {
		err = qerr
	}
	s.fail(err)
}

// Device is the stream's device.
func (s *Stream) Device() *gpu.Device {
	if s == nil {
		return nil
	}
	return s.dev
}

// Destroyed reports whether the stream was destroyed. Once it reports
// so, the stream's work is done: Destroy waits for it under the lock.
func (s *Stream) Destroyed() bool {
	if s == nil || s.queueState == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Queue is the stream's AQL queue; nil for a zero Stream.
func (s *Stream) Queue() *rocr.Queue {
	if s.queueState == nil {
		return nil
	}
	return s.q
}

// Err is the stream's sticky error: the first asynchronous failure.
func (s *Stream) Err() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

// report is Err for a call op that returns it to the program: from then
// on the failure is the stream's alone (see Mem.Settle). The first call
// to see the failure of work it waited for returns it as it is; a later
// one, which did not fail itself, says so (earlier).
func (s *Stream) report(op string) error {
	err := s.Err()
	if err != nil && s.reported.Swap(true) {
		return s.earlier(op, err)
	}
	return err
}

// earlier is the error of a call op refused because of err, the stream's
// earlier failure: "stream 3 failed earlier: …", with err's code and err
// itself underneath for errors.Is and errors.As. A stream's number is its
// queue's id.
func (s *Stream) earlier(op string, err error) error {
	return &gpu.Error{Code: gpu.CodeOf(err), Op: op, Msg: fmt.Sprintf("stream %d failed earlier", s.q.ID()), Err: err}
}

// isReported reports whether the stream's failure was returned to the
// program.
func (s *queueState) isReported() bool { return s.reported.Load() }

// SetKernelTimeout bounds how long each kernel launched on the stream from
// now on may run (0: no bound; HIPGO_KERNEL_TIMEOUT sets the default).
// On the cpu agent a Go kernel that polls kernel.Block.Canceled stops when
// the bound passes; its launch fails with gpu.ErrLaunchTimeOut, which is
// sticky like any launch failure, and other streams are not affected; one
// that does not return is abandoned a grace later (rocr.Queue.Abandon).
// Agents that cannot stop a kernel return gpu.ErrNotSupported.
func (s *Stream) SetKernelTimeout(d time.Duration) error {
	const op = "stream set kernel timeout"
	if err := s.Check(op); err != nil {
		return err
	}
	if d < 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "negative timeout %v", d)
	}
	if err := s.Lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return errs.Wrap(op, s.q.SetKernelTimeout(d))
}

// Check reports a stream that is no handle: nil, or a zero Stream, which
// stream.New did not make and which has no queue.
func (s *Stream) Check(op string) error {
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	if s.queueState == nil || s.q == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "stream not made by stream.New (a zero Stream)")
	}
	return nil
}

// usable checks, without taking the stream, that it may be waited on or
// queried: not nil, its device not reset, and not refused by a capture.
func (s *Stream) usable(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	if err := Valid(s.dev, s.gen); err != nil {
		return errs.Wrap(op, err)
	}
	return s.Refuse(op)
}

// Lock takes the stream for a submission and checks that it can take one.
func (s *Stream) Lock(op string) error {
	if err := s.Check(op); err != nil {
		return err
	}
	s.mu.Lock()
	if err := s.destroyedErr(op); err != nil {
		s.mu.Unlock()
		return err
	}
	// A submission refused for a failure of work before it did not fail
	// itself.
	if err := s.Err(); err != nil {
		s.reported.Store(true)
		s.mu.Unlock()
		return s.earlier(op, err)
	}
	return nil
}

// destroyedErr, with s.mu held, says why s takes no more calls: the
// runtime shut down (which destroys every stream, and is the reason
// whatever it did to this one), or the stream was destroyed. Nil when
// neither.
func (s *Stream) destroyedErr(op string) error {
	if err := Valid(s.dev, s.gen); err != nil {
		return errs.Wrap(op, err)
	}
	if s.closed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "stream was destroyed")
	}
	return nil
}

// tryLock takes the stream's lock unless a submission holds it for more
// than a moment (one waiting for queue space).
func (s *Stream) tryLock() bool {
	for i := 0; i < 64; i++ {
		if s.mu.TryLock() {
			return true
		}
		runtime.Gosched()
	}
	return false
}

// lockWait takes the stream's lock, giving up when ctx is done (a nil or
// never-done ctx waits as long as it takes).
func (s *Stream) lockWait(ctx context.Context) bool {
	if ctx == nil || ctx.Done() == nil {
		s.mu.Lock()
		return true
	}
	for !s.tryLock() {
		if ctx.Err() != nil {
			return false
		}
		time.Sleep(100 * time.Microsecond)
	}
	return true
}

// queueErr is the error of a submission the queue refused: the runtime's
// shutdown when that is why (hipErrorContextIsDestroyed), else err.
func (s *Stream) queueErr(op string, err error) error {
	if derr := Valid(s.dev, s.gen); derr != nil {
		return errs.Wrap(op, derr)
	}
	return errs.Wrap(op, err)
}

// Push records an in-flight packet, waiting for the oldest when the ring
// is full. Completed packets are reaped after each submission (reapAfter),
// while the agent runs the packet just published.
func (s *Stream) Push() *entry {
	if s.count == len(s.ring) {
		s.reap(false)
	}
	for s.count == len(s.ring) {
		s.reapOne(true)
	}
	e := s.at(s.head + s.count)
	s.count++
	return e
}

// at is the ring's entry i, counting on past its end: the ring's length
// is twice the queue's, a power of two, so a mask finds it (a division,
// on every submission, cost more).
func (s *queueState) at(i int) *entry { return &s.ring[i&(len(s.ring)-1)] }

// reap releases completed in-flight packets; wait: wait for all of them.
func (s *queueState) reap(wait bool) {
	for s.count > 0 {
		if !s.reapOne(wait) {
			return
		}
	}
}

// reapOne releases the oldest run of entries up to and including the first
// one with a fence, if that fence completed (or after waiting for it).
func (s *queueState) reapOne(wait bool) bool {
	n := 0
	var f *Fence
	for i := 0; i < s.count; i++ {
		e := s.at(s.head + i)
		n++
		if e.fence != nil {
			f = e.fence
			break
		}
	}
	if f == nil {
		// Every chain of packets ends in one with a fence; entries without
		// one are left by a submission that failed half way (the queue was
		// destroyed). Only a destroyed queue's entries can be dropped.
		if !wait || !s.q.Destroyed() {
			return false
		}
	} else if !f.Done() {
		if !wait {
			return false
		}
		_ = f.Wait(0)
	}
	for i := 0; i < n; i++ {
		s.release(&s.ring[s.head])
		s.head = (s.head + 1) & (len(s.ring) - 1)
		s.count--
	}
	return true
}

// release lets go of what an in-flight entry holds and clears it.
func (s *queueState) release(e *entry) {
	if e.check != nil {
		s.checks.Add(-1)
		// A packet dropped unsubmitted or cut short by a destroyed queue
		// ran no kernel whose record could be read.
		if e.fence != nil && e.fence.Done() && e.fence.Err() == nil {
			s.fail(e.check())
		}
	}
	if e.fence != nil {
		s.fences.Release(e.fence)
	}
	for j := 0; j < e.ndeps; j++ {
		s.fences.Release(e.deps[j])
	}
	if e.pin != 0 {
		hostref.UnpinHost(e.pin)
	}
	s.putArea(e.area)
	*e = entry{}
}

// Submit writes one packet. body is the whole 64-byte packet; its header
// word is replaced by h. e, the entry push returned for it, holds the
// packet's fence, which becomes the tail. If the packet cannot be
// submitted, e is dropped.
func (s *Stream) Submit(body unsafe.Pointer, h aql.Header, e *entry) error {
	if _, err := s.q.Submit(body, h); err != nil {
		s.Drop(e)
		return s.queueErr("submit", err)
	}
	if e.fence != nil {
		s.SetTail(e.fence)
	}
	s.reap(false)
	return nil
}

// SetTail makes f, a fence of a packet just published, the stream's last.
func (s *Stream) SetTail(f *Fence) {
	if s.legHeld != legNone {
		s.recordLegacy(f)
	}
	f.Retain()
	if s.tail != nil {
		s.fences.Release(s.tail)
	}
	s.tail = f
}

// Drop undoes the last push for a packet that was not published: its
// fence is cancelled, so that buffers that already recorded it as their
// last use do not wait for it forever.
func (s *Stream) Drop(e *entry) {
	if e.fence != nil {
		e.fence.Cancel()
	}
	s.release(e)
	s.count--
}

var (
	BarrierHeader  = aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)
	AgentHeader    = aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
	dispatchHeader = aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem)
)

// Barrier submits BARRIER_AND packets for deps, five to a packet, chained
// by the barrier bit. The stream takes over the deps' references and keeps
// them until a later fence completes: the last packet's own when fenced
// (a WaitEvent, which a Synchronize must see), otherwise the fence of the
// packet the caller submits right after (a launch, a copy), which saves a
// completion signal per dependency.
func (s *Stream) Barrier(deps []*Fence, fenced bool) error {
	var f *Fence
	if fenced {
		var err error
		if f, err = s.newFence("wait event"); err != nil {
			for _, d := range deps {
				s.fences.Release(d)
			}
			return err
		}
		f.Signal().SkipTimestamps() // a wait, not an event record
	}
	for first := true; first || len(deps) > 0; first = false {
		var p aql.BarrierAnd
		e := s.Push()
		n := min(len(deps), aql.MaxBarrierDeps)
		for i := 0; i < n; i++ {
			p.DepSignal[i] = deps[i].Signal().Handle()
			e.deps[i] = deps[i]
		}
		e.ndeps = n
		deps = deps[n:]
		last := len(deps) == 0
		if last && f != nil {
			p.CompletionSignal = f.Signal().Handle()
			e.fence = f
		}
		if err := s.Submit(unsafe.Pointer(&p), BarrierHeader, e); err != nil {
			for _, d := range deps {
				s.fences.Release(d)
			}
			if !last && f != nil {
				s.fences.Release(f)
			}
			return err
		}
	}
	return nil
}

// Synchronize waits for all work on the stream (hipStreamSynchronize) and
// returns the stream's sticky error, if any.
func (s *Stream) Synchronize() error { return s.synchronize(context.Background()) }

// SynchronizeContext is Synchronize that gives up when ctx is done,
// returning an error that wraps both gpu.ErrNotReady and ctx's error; the
// work goes on and a later Synchronize waits for it.
func (s *Stream) SynchronizeContext(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	return s.synchronize(ctx)
}

// synchronize waits for the tail; a nil ctx waits without one.
func (s *Stream) synchronize(ctx context.Context) error {
	const op = "stream synchronize"
	if err := s.usable(op); err != nil {
		return err
	}
	if !s.lockWait(ctx) {
		return &gpu.Error{Code: gpu.ErrNotReady, Op: op, Msg: "work still being submitted", Err: ctx.Err()}
	}
	if err := s.destroyedErr(op); err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.tail
	if t != nil {
		t.Retain()
	}
	s.mu.Unlock()
	if t != nil {
		if err := s.waitsForItself(op, t, ctx == nil || ctx.Done() == nil); err != nil {
			t.Release()
			return err
		}
		if err := WaitContext(ctx, op, t, hsa.WaitActive); err != nil {
			t.Release()
			return err
		}
		s.FailedBy(t)
		t.Release()
	}
	if err := Valid(s.dev, s.gen); err != nil {
		return errs.Wrap(op, err) // shut down while we waited
	}
	s.runChecks(ctx)
	if ctx == nil {
		ctx = context.Background()
	}
	s.flushPrintf(ctx, false)
	return s.report(op)
}

// runChecks releases the completed packets that carry a completion
// check, so that a check's failure is the stream's error before a wait
// reports it. Without such packets it costs one atomic load.
func (s *Stream) runChecks(ctx context.Context) {
	if s.checks.Load() == 0 || !s.lockWait(ctx) {
		return
	}
	s.reap(false)
	s.mu.Unlock()
}

// selfWaitGrace is how long a wait runs before it asks whether it waits
// for itself: the question costs microseconds, most waits end sooner.
const selfWaitGrace = time.Millisecond

// waitsForItself fails a wait for f, a fence of the stream, that could
// never end: f is not done soon and the calling goroutine runs a packet
// of the stream's queue (a host function or Go kernel waiting for its own
// stream). CUDA answers API calls from a host function with
// cudaErrorNotPermitted; so does this. A caller that may block lets the
// driver wait for work it has issued (rocr.Signal.Await: a stream
// synchronize, as native code waits) instead of polling through the grace.
func (s *Stream) waitsForItself(op string, f *Fence, mayBlock bool) error {
	if f == nil || mayBlock && f.sig.Await() {
		return nil
	}
	if _, ok := f.sig.WaitTimed(hsa.CondLT, 1, selfWaitGrace, hsa.WaitActive); ok {
		return nil
	}
	if rocr.RunningQueue() != s.q {
		return nil
	}
	return &gpu.Error{Code: gpu.ErrNotPermitted, Op: op, Msg: fmt.Sprintf("called from a host function or kernel running on this stream (queue %d), whose own work it would wait for", s.q.ID()), Err: rocr.ErrSelfWait}
}

// WaitContext waits for f until ctx is done. A context that can never be
// done costs nothing; one that can is polled every millisecond.
func WaitContext(ctx context.Context, op string, f *Fence, hint hsa.WaitHint) error {
	if ctx == nil || ctx.Done() == nil {
		_ = f.WaitHint(0, hint)
		return nil
	}
	for !f.Done() {
		if err := ctx.Err(); err != nil {
			return &gpu.Error{Code: gpu.ErrNotReady, Op: op, Msg: "work still pending", Err: err}
		}
		_ = f.WaitHint(time.Millisecond, hint)
	}
	return nil
}

// Query reports whether all work on the stream completed: nil, the sticky
// error, or gpu.ErrNotReady while work is pending (hipStreamQuery).
func (s *Stream) Query() error {
	const op = "stream query"
	if err := s.usable(op); err != nil {
		return err
	}
	if err := s.report(op); err != nil {
		return err
	}
	// A submitter may hold the stream while it waits for room in a full
	// queue: that is pending work, and Query does not wait behind it.
	if !s.tryLock() {
		return gpu.ErrNotReady
	}
	if err := s.destroyedErr(op); err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.tail
	done := t == nil || t.Query()
	if done && t != nil {
		s.FailedBy(t)
	}
	if done && s.checks.Load() != 0 {
		s.reap(false)
	}
	s.mu.Unlock()
	if !done {
		return gpu.ErrNotReady
	}
	s.flushPrintf(context.Background(), true)
	return s.report(op)
}

// Destroy waits for the stream's work and releases it (hipStreamDestroy).
// The default stream is destroyed by gpu.Shutdown only.
func (s *Stream) Destroy() error {
	if err := s.Check("stream destroy"); err != nil {
		return err
	}
	if s.legacy {
		return gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "the legacy stream cannot be destroyed")
	}
	if s.isDefault {
		return gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "the default stream cannot be destroyed")
	}
	aborted, err := s.destroy()
	if err != nil {
		return err
	}
	return aborted // the stream is destroyed, and its capture with it
}

// OnDestroy has f run once the stream is destroyed, its work done (by
// Destroy, or gpu.Shutdown for the default stream): per-stream state of
// another package (gpu/prim's temporary storage) goes with the stream.
// It reports false, and never runs f, where the stream is destroyed
// already.
func (s *Stream) OnDestroy(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.onDestroy = append(s.onDestroy, f)
	return true
}

// destroy destroys the stream. aborted is the capture it ended, if any,
// which Destroy reports and Shutdown (the default stream) does not.
func (s *Stream) destroy() (aborted, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, "stream destroy", "stream already destroyed")
	}
	if err := s.waitsForItself("stream destroy", s.tail, true); err != nil && Valid(s.dev, s.gen) == nil {
		s.mu.Unlock()
		return nil, err
	}
	// Under s.mu, as EndCapture ends a capture: a submission in progress
	// is recorded first.
	aborted = s.abortCapture()
	s.closed = true
	s.backstop.Stop()
	// An abandoned kernel (rocr.ErrAbandoned) is reported, whoever
	// destroyed the queue.
	var abandoned error
	if Valid(s.dev, s.gen) != nil && !s.q.Destroyed() {
		// gpu.Shutdown: cancel the work in flight instead of waiting for
		// it, as rocr.ShutDown does on every other queue, so a runaway
		// kernel on the default stream cannot hang Shutdown.
		abandoned = s.q.Destroy()
	}
	if s.tail != nil && abandoned == nil {
		abandoned = s.awaitTail()
	}
	if s.tail != nil {
		_ = s.tail.Wait(0)
	}
	s.reap(true)
	if s.tail != nil {
		s.fences.Release(s.tail)
		s.tail = nil
	}
	s.fences.Flush()
	if !errors.Is(abandoned, rocr.ErrAbandoned) {
		s.freePrintf(Valid(s.dev, s.gen) == nil)
		s.freeAreas() // an abandoned kernel may still read its area
	} else {
		s.printf.Store(nil) // and write its printf buffer
	}
	hooks := s.onDestroy
	s.onDestroy = nil
	s.mu.Unlock()
	s.leaveBlocking()
	s.releaseLegacyTail()
	for _, f := range hooks {
		f()
	}
	Unregister(s.dev, s.ref)
	if errors.Is(abandoned, rocr.ErrAbandoned) {
		return aborted, errs.Wrap("stream destroy", abandoned)
	}
	if s.q.Destroyed() {
		// The runtime was shut down or the device reset; a stream from
		// before the reset says so.
		if err := Valid(s.dev, s.gen); err != nil && s.dev.Valid() == nil && !s.isDefault {
			return aborted, errs.Wrap("stream destroy", err)
		}
		return aborted, nil
	}
	return aborted, errs.Wrap("stream destroy", s.q.Destroy())
}

// awaitTail waits for the stream's work before Destroy, as long as it
// moves on. A kernel that runs through a whole grace (the queue's
// KernelGrace) is cancelled by destroying the queue, which abandons it if
// it does not return within another; the error that reports it is
// returned.
func (s *Stream) awaitTail() error {
	grace := s.q.KernelGrace()
	for !s.q.Destroyed() {
		id, running := s.q.RunningKernel()
		if s.tail.Wait(grace) == nil || s.tail.Done() {
			return nil
		}
		if now, still := s.q.RunningKernel(); running && still && now == id {
			return s.q.Destroy()
		}
	}
	return nil
}

// releaseAfterShutdown lets go of the host slices the stream's packets
// still pin once gpu.Shutdown has destroyed the queues, so a stream its
// user never destroyed keeps no Go memory alive. Its fences are not
// returned to the pool: a packet abandoned by Shutdown (a kernel that does
// not poll for cancellation) may still complete its signal later.
func (s *queueState) releaseAfterShutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 0; i < s.count; i++ {
		e := s.at(s.head + i)
		if e.pin != 0 {
			hostref.UnpinHost(e.pin)
			e.pin = 0
		}
	}
}
