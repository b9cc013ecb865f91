package stream

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// EventFlags are hipEventCreateWithFlags' flags.
type EventFlags uint32

// Event flags.
const (
	EventDefault       EventFlags = 0
	EventBlockingSync  EventFlags = 1
	EventDisableTiming EventFlags = 2
	// EventInterprocess: the event can be shared with other processes
	// (IPCHandle, OpenIPCEvent); it needs EventDisableTiming, as in HIP.
	EventInterprocess EventFlags = 4
)

// Event marks a point in a stream (hipEvent_t). Each Record submits a
// BARRIER_AND whose completion signal is a fresh fence; the event holds the
// last one. The stream that ran the packet and every stream waiting on it
// hold their own references, so destroying or re-recording an event never
// frees a signal a queued packet still uses. Make one with NewEvent: a zero
// Event's methods return gpu.ErrInvalidHandle.
type Event struct {
	dev   *gpu.Device
	gen   uint64 // dev's reset count when the event was made
	flags EventFlags
	mu    sync.Mutex
	// held is the last record, allocated apart from the Event so that
	// its backstop (backstop.go) can release it once the Event is
	// unreachable; held.f is nil before the first record.
	held      *heldFence
	backstop  runtime.Cleanup
	destroyed bool
	// shared: an interprocess event's fence, on the signal both processes
	// map (ipcevent.go); fence is it for the event's whole life.
	shared *core.Fence
	handle gpu.IPCHandle // the handle of an interprocess event made here
	opened bool          // opened from another process's handle
}

// NewEvent creates an event on dev (hipEventCreateWithFlags).
func NewEvent(dev *gpu.Device, flags EventFlags) (*Event, error) {
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap("event create", err)
	}
	if flags&^(EventBlockingSync|EventDisableTiming|EventInterprocess) != 0 {
		return nil, gpu.Errorf(gpu.ErrInvalidValue, "event create", "unknown flags %#x", uint32(flags))
	}
	ev := &Event{dev: dev, gen: core.Gen(dev), flags: flags, held: &heldFence{}}
	if flags&EventInterprocess != 0 {
		if err := ev.makeShared(); err != nil {
			return nil, err
		}
	}
	ev.track()
	return ev, nil
}

// errZeroEvent reports an Event that NewEvent did not make.
func errZeroEvent(op string) error {
	return gpu.Errorf(gpu.ErrInvalidHandle, op, "event not made by stream.NewEvent (a zero Event)")
}

// Flags are the event's flags; EventDefault for a nil event.
func (ev *Event) Flags() EventFlags {
	if ev == nil {
		return EventDefault
	}
	return ev.flags
}

// Device is the device the event was made on; nil for a nil or zero
// event.
func (ev *Event) Device() *gpu.Device {
	if ev == nil {
		return nil
	}
	return ev.dev
}

// Valid reports a nil, zero or destroyed event (gpu.ErrInvalidHandle),
// or one whose device was reset.
func (ev *Event) Valid() error {
	const op = "event"
	if ev == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil event")
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return ev.checkLocked(op)
}

// checkLocked reports a zero or destroyed event; ev.mu is held.
func (ev *Event) checkLocked(op string) error {
	if ev.dev == nil {
		return errZeroEvent(op)
	}
	if ev.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "event was destroyed")
	}
	if err := core.Valid(ev.dev, ev.gen); err != nil {
		return errs.Wrap(op, err)
	}
	return nil
}

// last returns the fence of the last record, retained, or nil if the
// event was never recorded.
func (ev *Event) last(op string) (*core.Fence, error) {
	if ev == nil {
		return nil, gpu.Errorf(gpu.ErrInvalidHandle, op, "nil event")
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err := ev.checkLocked(op); err != nil {
		return nil, err
	}
	if f := ev.held.f; f != nil {
		f.Retain()
	}
	return ev.held.f, nil
}

// Record marks the event at the current end of the stream
// (hipEventRecord): a BARRIER_AND with no dependency whose completion
// signal is the event's. The stream must be of the event's device, as in
// HIP and CUDA; any device's stream may wait for the event.
func (s *Stream) Record(ev *Event) error { return s.record("event record", ev, false) }

// GraphRecord records ev on s as a graph's event record node does
// (hipGraphAddEventRecordNode): s may be a stream of another device than
// ev's, as in HIP. gpu/graph's launches call it; programs call Record.
func GraphRecord(s *Stream, ev *Event) error {
	return s.record("graph event record node", ev, true)
}

// record is Record; anyDevice lets a stream of another device record ev.
func (s *Stream) record(op string, ev *Event, anyDevice bool) error {
	if ev == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil event")
	}
	ev.mu.Lock()
	err := ev.checkLocked(op)
	ev.mu.Unlock()
	if err != nil {
		return err
	}
	if err := s.core().Check(op); err != nil {
		return err
	}
	if d := s.Device(); d != nil && d != ev.dev && !anyDevice {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "event of device %d recorded on a stream of device %d: record it on a stream of device %d", ev.dev.Ordinal(), d.Ordinal(), ev.dev.Ordinal())
	}
	if ev.shared != nil {
		return s.recordShared(op, ev)
	}
	// Not under ev.mu: the submission may wait for queue space, and the
	// work it waits for (a host function) may query the event.
	f, err := s.core().Record(op, ev.flags&EventDisableTiming == 0)
	if err != nil {
		return err
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err := ev.checkLocked(op); err != nil {
		f.Release() // destroyed meanwhile: the stream holds its own reference
		return err
	}
	if ev.held.f != nil {
		ev.held.f.Release()
	}
	ev.held.f = f
	return nil
}

// WaitEvent makes later work on the stream wait for the event
// (hipStreamWaitEvent): a BARRIER_AND on the event's signal. An event never
// recorded, or already complete, needs no packet.
func (s *Stream) WaitEvent(ev *Event) error { return s.WaitEvents(ev) }

// WaitEvents makes later work wait for all the events: BARRIER_AND
// packets of five signals each, chained by the barrier bit.
func (s *Stream) WaitEvents(evs ...*Event) error {
	const op = "stream wait event"
	var buf [2 * aql.MaxBarrierDeps]*core.Fence
	deps := buf[:0]
	release := func() {
		for _, d := range deps {
			d.Release()
		}
	}
	for _, ev := range evs {
		f, err := ev.last(op)
		if err != nil {
			release()
			return err
		}
		if f == nil {
			continue
		}
		if f.Done() {
			f.Release()
			continue
		}
		deps = append(deps, f)
	}
	if err := s.core().Check(op); err != nil {
		release()
		return err
	}
	return s.core().WaitFences(op, deps)
}

// Synchronize waits for the event (hipEventSynchronize) and returns the
// failure of the work it followed, if any. An event never recorded is
// complete. An event last recorded in a capture that has not ended
// (gpu/graph) is gpu.ErrCapturedEvent, which invalidates the capture, as
// in HIP.
func (ev *Event) Synchronize() error {
	return ev.SynchronizeContext(context.Background())
}

// SynchronizeContext is Synchronize that gives up when ctx is done, with an
// error wrapping gpu.ErrNotReady and ctx's error.
func (ev *Event) SynchronizeContext(ctx context.Context) error {
	const op = "event synchronize"
	f, err := ev.lastOutsideCapture(op)
	if err != nil || f == nil {
		return err
	}
	defer f.Release()
	hint := hsa.WaitActive
	if ev.flags&EventBlockingSync != 0 {
		hint = hsa.WaitBlocked
	}
	if err := core.WaitContext(ctx, op, f, hint); err != nil {
		return err
	}
	core.TrimPools(ev.dev)
	return errs.Wrap(op, f.Err())
}

// lastOutsideCapture is ev.last, refusing an event last recorded in a
// capture that has not ended; the caller releases a non-nil fence.
func (ev *Event) lastOutsideCapture(op string) (*core.Fence, error) {
	f, err := ev.last(op)
	if err != nil || f == nil {
		return nil, err
	}
	if err := core.RefuseCaptured(op, f); err != nil {
		f.Release()
		return nil, err
	}
	return f, nil
}

// Query reports whether the event completed: nil, gpu.ErrNotReady, or the
// failure of the work it followed (hipEventQuery). Like Synchronize, it
// refuses an event recorded in a capture that has not ended.
func (ev *Event) Query() error {
	const op = "event query"
	f, err := ev.lastOutsideCapture(op)
	if err != nil || f == nil {
		return err
	}
	defer f.Release()
	if !f.Query() {
		return gpu.ErrNotReady
	}
	return errs.Wrap(op, f.Err())
}

// Elapsed is the time between two completed events
// (hipEventElapsedTime), from the packets' timestamps: end's completion
// less start's. It is negative when end completed first, which two
// events on independent streams (or start recorded after end) may do:
// Elapsed does not order them, and says how they fell.
func Elapsed(start, end *Event) (time.Duration, error) {
	const op = "event elapsed time"
	f0, err := start.last(op)
	if err != nil {
		return 0, err
	}
	if f0 != nil {
		defer f0.Release()
	}
	f1, err := end.last(op)
	if err != nil {
		return 0, err
	}
	if f1 != nil {
		defer f1.Release()
	}
	if start.dev != end.dev {
		// HIP's answer; CUDA's is CUDA_ERROR_INVALID_HANDLE too.
		return 0, gpu.Errorf(gpu.ErrInvalidHandle, op, "events of device %d and device %d: both must be of one device", start.dev.Ordinal(), end.dev.Ordinal())
	}
	if start.flags&EventDisableTiming != 0 || end.flags&EventDisableTiming != 0 {
		return 0, gpu.Errorf(gpu.ErrInvalidHandle, op, "an event was created with EventDisableTiming")
	}
	if f0 == nil || f1 == nil {
		return 0, gpu.Errorf(gpu.ErrInvalidHandle, op, "an event was never recorded")
	}
	if !f0.Done() || !f1.Done() {
		return 0, gpu.ErrNotReady
	}
	_, t0 := f0.Signal().Timestamps()
	_, t1 := f1.Signal().Timestamps()
	return time.Duration(int64(t1) - int64(t0)), nil
}

// ElapsedMillis is Elapsed in milliseconds, as hipEventElapsedTime reports.
func ElapsedMillis(start, end *Event) (float32, error) {
	d, err := Elapsed(start, end)
	return float32(d.Seconds() * 1e3), err
}

// Destroy releases the event (hipEventDestroy). As in HIP, an event may be
// destroyed before it completes: streams that already wait on it still
// wait for the work it marks, and its signal is freed when that work is
// done. Any later use of the event is an error.
func (ev *Event) Destroy() error {
	if ev == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, "event destroy", "nil event")
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.dev == nil {
		return errZeroEvent("event destroy")
	}
	if ev.destroyed {
		return gpu.Errorf(gpu.ErrInvalidHandle, "event destroy", "event already destroyed")
	}
	ev.destroyed = true
	ev.backstop.Stop()
	live.RemoveWeak(ev)
	if ev.held.f != nil {
		ev.held.f.Release()
		ev.held.f = nil
	}
	return nil
}
