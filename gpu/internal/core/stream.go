package core

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/errs"
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
