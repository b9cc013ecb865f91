package stream

import (
	"context"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
)

// Flags are hipStreamCreateWithFlags' flags.
type Flags uint32

// Stream flags.
const (
	Default Flags = 0
	// NonBlocking (hipStreamNonBlocking): the stream does not synchronize
	// with the legacy stream (Legacy). Streams without it are blocking.
	NonBlocking Flags = 1
	// ManualDeps: the program orders this stream's work against other
	// streams itself, with events, as in HIP; no BARRIER_AND is inserted
	// for a buffer another stream still uses.
	ManualDeps Flags = 1 << 8
)

// Priorities, as hipDeviceGetStreamPriorityRange reports them for the cpu
// agent and rocm: a lower number is a higher priority. A device's own
// range is dev.StreamPriorityRange().
const (
	PriorityLow  = 0
	PriorityHigh = -1
)

// QueueSize is the number of packet slots of a stream's queue.
const QueueSize = 1024

// Stream is an ordered sequence of device work: one AQL queue. Its methods
// are safe from several goroutines; work submitted by one goroutine runs in
// submission order. Make one with New: a zero Stream is no stream, and its
// methods return gpu.ErrInvalidHandle.
type Stream core.Stream

// New creates a stream on dev (hipStreamCreate).
func New(dev *gpu.Device) (*Stream, error) { return NewWithFlags(dev, Default, PriorityLow) }

// NewWithFlags creates a stream with flags and a priority
// (hipStreamCreateWithPriority). A priority outside the device's range
// (dev.StreamPriorityRange) is clamped into it, as in HIP. Priorities are
// recorded and reported; the cpu agent runs every queue alike.
func NewWithFlags(dev *gpu.Device, flags Flags, priority int) (*Stream, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("stream create", err)
	}
	if flags&^(NonBlocking|ManualDeps) != 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "stream create", "unknown flags %#x", uint32(flags))
	}
	least, greatest := dev.StreamPriorityRange()
	priority = min(max(priority, greatest), least)
	s := new(Stream)
	s.core().SetAttributes(uint32(flags), priority)
	if err := s.core().Init(dev, QueueSize); err != nil {
		return nil, errs.Wrap("stream create", err)
	}
	if flags&ManualDeps != 0 {
		s.core().SetOrder(core.Manual)
	}
	if flags&NonBlocking != 0 {
		s.core().MarkNonBlocking()
	}
	return s, nil
}

type defaultKey struct{}

// DefaultStream returns dev's default stream (the null stream, stream 0).
// hipgo's default stream is an ordinary in-order stream, like HIP's
// per-thread default stream: it does not implicitly synchronize with
// other streams; use events or WaitEvent for that, or Legacy.
func DefaultStream(dev *gpu.Device) (*Stream, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("default stream", err)
	}
	v, err := core.DeviceValue(dev, defaultKey{}, func() (any, func() error, error) {
		s, err := New(dev)
		if err != nil {
			return nil, nil, err
		}
		s.core().MarkDefault()
		return s, s.core().DestroyDefault, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Stream), nil
}

type legacyKey struct{}

// Legacy returns dev's legacy default stream (hipStreamLegacy, CUDA's
// legacy NULL stream). Its work starts after all work queued before on
// every blocking stream of dev (every stream made without NonBlocking,
// DefaultStream included), and work queued later on those streams waits
// for its work. An event recorded on it therefore marks the end of all
// earlier work of the device's blocking streams. It is made on first use;
// until then no stream pays for it. It cannot capture
// (gpu.ErrStreamCaptureUnsupported), and its work while a blocking
// stream of dev captures fails with gpu.ErrStreamCaptureImplicit and
// invalidates that capture, as in CUDA. Like DefaultStream, only
// gpu.Shutdown destroys it.
func Legacy(dev *gpu.Device) (*Stream, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("legacy stream", err)
	}
	v, err := core.DeviceValue(dev, legacyKey{}, func() (any, func() error, error) {
		s, err := New(dev)
		if err != nil {
			return nil, nil, err
		}
		s.core().MarkLegacy()
		return s, s.core().DestroyDefault, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Stream), nil
}

// IsLegacy reports whether s is its device's legacy stream (Legacy).
func (s *Stream) IsLegacy() bool { return s != nil && s.core().IsLegacy() }

// Device is the stream's device; nil for a nil stream.
func (s *Stream) Device() *gpu.Device {
	if s == nil {
		return nil
	}
	return s.core().Device()
}

// Flags are the stream's flags; Default for a nil stream.
func (s *Stream) Flags() Flags {
	if s == nil {
		return Default
	}
	f, _ := s.core().Attributes()
	return Flags(f)
}

// Priority is the stream's priority; PriorityLow for a nil stream.
func (s *Stream) Priority() int {
	if s == nil {
		return PriorityLow
	}
	_, p := s.core().Attributes()
	return p
}

// Err is the stream's sticky error: the first asynchronous failure. A nil
// stream has none to report but is not a stream: Err says so, as Query
// does.
func (s *Stream) Err() error {
	if err := s.core().Check("stream error"); err != nil {
		return err
	}
	return s.core().Err()
}

// SetKernelTimeout bounds how long each kernel launched on the stream from
// now on may run (0: no bound; HIPGO_KERNEL_TIMEOUT sets the default).
// On the cpu agent a Go kernel that polls kernel.Block.Canceled stops when
// the bound passes; its launch fails with gpu.ErrLaunchTimeOut, which is
// sticky like any launch failure, and other streams are not affected. A
// kernel that has not returned a grace later (HIPGO_KERNEL_GRACE, default
// 3s) is abandoned, as a GPU watchdog would: its launch fails with
// gpu.ErrLaunchTimeOut wrapping hsa.ErrAbandoned, Synchronize returns,
// and the stream's later work runs (and fails, the stream having failed);
// see the cpu package for what the abandoned kernel keeps. Agents that
// cannot stop a kernel return gpu.ErrNotSupported.
func (s *Stream) SetKernelTimeout(d time.Duration) error {
	if err := s.core().Check("stream set kernel timeout"); err != nil {
		return err
	}
	return s.core().SetKernelTimeout(d)
}

// Synchronize waits for all work on the stream (hipStreamSynchronize) and
// returns the stream's sticky error, if any. On the legacy stream (Legacy)
// it also waits for the work queued before on every blocking stream of
// the device, DefaultStream included, as hipStreamSynchronize(0) does;
// their failures are theirs to report. It prints what the stream's
// AMDGPU kernels wrote with printf (on rocm) to stdout; a Query that finds
// the work done does too.
func (s *Stream) Synchronize() error { return s.SynchronizeContext(context.Background()) }

// SynchronizeContext is Synchronize that gives up when ctx is done,
// returning an error that wraps both gpu.ErrNotReady and ctx's error; the
// work goes on and a later Synchronize waits for it.
func (s *Stream) SynchronizeContext(ctx context.Context) error {
	if err := s.core().Check("stream synchronize"); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if err := s.core().WaitBlocking(ctx, "stream synchronize"); err != nil {
		return err
	}
	err := s.core().SynchronizeContext(ctx)
	if ctx.Err() == nil {
		core.TrimPools(s.Device())
	}
	return err
}

// Query reports whether all work on the stream completed: nil, the sticky
// error, or gpu.ErrNotReady while work is pending (hipStreamQuery). On the
// legacy stream, work pending on any blocking stream of the device counts
// too, as for hipStreamQuery(0).
func (s *Stream) Query() error {
	if err := s.core().Check("stream query"); err != nil {
		return err
	}
	if err := s.core().Query(); err != nil {
		return err
	}
	if !s.core().BlockingDone() {
		return gpu.ErrNotReady
	}
	return nil
}

// Destroy waits for the stream's work and releases it (hipStreamDestroy).
// The default stream is destroyed by gpu.Shutdown only. A kernel that runs
// through a whole grace (HIPGO_KERNEL_GRACE, default 3s) without
// returning is cancelled, its queue being destroyed, and abandoned if it
// has not returned a grace later: Destroy then returns, after about two
// graces, an error wrapping hsa.ErrAbandoned that names the kernel, the
// stream being destroyed all the same. A host function (LaunchHostFunc,
// and a collective's operations, which wait for their peers in one) that
// does not return is given up on the same way: the error names "its host
// function", whose goroutine runs on until it returns. Destroy so returns
// within about two graces whatever is queued. gpu.Shutdown does the same
// for every queue, after one grace each, and reports each abandoned
// kernel and host function. A stream that is
// capturing (gpu/graph) is destroyed all the same, and its capture ends
// (or, for a stream that joined another's capture, is invalidated):
// Destroy then returns gpu.ErrStreamCaptureInvalidated saying so, as
// does a later EndCapture on the stream.
func (s *Stream) Destroy() error {
	if err := s.core().Check("stream destroy"); err != nil {
		return err
	}
	return s.core().Destroy()
}

// core is the submitter; nil for a nil stream, which its methods report.
func (s *Stream) core() *core.Stream { return (*core.Stream)(s) }
