package stream

import (
	"sync"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
)

// EventFlags are hipEventCreateWithFlags' flags.
type EventFlags uint32

// Event flags.
const (
	EventDefault       EventFlags = 0
	EventBlockingSync  EventFlags = 1
	EventDisableTiming EventFlags = 2
)

// Event marks a point in a stream: one HSA signal that a BARRIER_AND
// packet completes (hipEvent_t).
type Event struct {
	dev       *gpu.Device
	flags     EventFlags
	mu        sync.Mutex
	sig       *rocr.Signal
	recorded  bool
	destroyed bool
}

// NewEvent creates an event on dev (hipEventCreateWithFlags).
func NewEvent(dev *gpu.Device, flags EventFlags) (*Event, error) {
	if err := dev.Valid(); err != nil {
		return nil, gpu.Wrap("event create", err)
	}
	if flags&^(EventBlockingSync|EventDisableTiming) != 0 {
		return nil, gpu.Errorf(gpu.ErrorInvalidValue, "event create", "unknown flags %#x", uint32(flags))
	}
	sig, err := rocr.NewSignal(0)
	if err != nil {
		return nil, gpu.Wrap("event create", err)
	}
	return &Event{dev: dev, flags: flags, sig: sig}, nil
}

func (ev *Event) check(op string) error {
	if ev == nil {
		return gpu.Errorf(gpu.ErrorInvalidHandle, op, "nil event")
	}
	if ev.destroyed {
		return gpu.Errorf(gpu.ErrorInvalidHandle, op, "event was destroyed")
	}
	return nil
}

// Record marks the event at the current end of the stream
// (hipEventRecord): a BARRIER_AND with no dependency whose completion
// signal is the event's.
func (s *Stream) Record(ev *Event) error {
	const op = "event record"
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err := ev.check(op); err != nil {
		return err
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	ev.sig.Store(1, rocr.Release)
	var p aql.BarrierAnd
	p.CompletionSignal = ev.sig.Handle()
	e := s.push()
	if err := s.submit(unsafe.Pointer(&p), barrierHeader, e); err != nil {
		ev.sig.Store(0, rocr.Release)
		return err
	}
	ev.recorded = true
	s.lastRecord = ev.sig
	return nil
}

// WaitEvent makes later work on the stream wait for the event
// (hipStreamWaitEvent): a BARRIER_AND on the event's signal. An event never
// recorded is complete.
func (s *Stream) WaitEvent(ev *Event) error {
	const op = "stream wait event"
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err := ev.check(op); err != nil {
		return err
	}
	if !ev.recorded {
		return nil
	}
	if err := s.lock(op); err != nil {
		return err
	}
	defer s.mu.Unlock()
	return s.waitSignals(ev.sig)
}

// WaitEvents makes later work wait for all the events; more than five
// chain barrier packets.
func (s *Stream) WaitEvents(evs ...*Event) error {
	for _, ev := range evs {
		if err := s.WaitEvent(ev); err != nil {
			return err
		}
	}
	return nil
}

// waitSignals submits one BARRIER_AND on a signal the stream does not own.
func (s *Stream) waitSignals(sig *rocr.Signal) error {
	var p aql.BarrierAnd
	p.DepSignal[0] = sig.Handle()
	f, err := buffer.NewFence(s.q.ID())
	if err != nil {
		return err
	}
	p.CompletionSignal = f.Signal().Handle()
	e := s.push()
	e.fence = f
	return s.submit(unsafe.Pointer(&p), barrierHeader, e)
}

// Synchronize waits for the event (hipEventSynchronize) and returns the
// failure of the work it followed, if any.
func (ev *Event) Synchronize() error {
	if err := ev.check("event synchronize"); err != nil {
		return err
	}
	hint := rocr.WaitActive
	if ev.flags&EventBlockingSync != 0 {
		hint = rocr.WaitBlocked
	}
	ev.sig.Wait(rocr.CondEQ, 0, 0, hint)
	return gpu.Wrap("event synchronize", ev.sig.Err())
}

// Query reports whether the event completed: nil or gpu.ErrNotReady.
func (ev *Event) Query() error {
	if err := ev.check("event query"); err != nil {
		return err
	}
	if ev.sig.Load(rocr.Acquire) != 0 {
		return gpu.ErrNotReady
	}
	return gpu.Wrap("event query", ev.sig.Err())
}

// Elapsed is the time between two completed events
// (hipEventElapsedTime), from the packets' timestamps.
func Elapsed(start, end *Event) (time.Duration, error) {
	const op = "event elapsed time"
	if err := start.check(op); err != nil {
		return 0, err
	}
	if err := end.check(op); err != nil {
		return 0, err
	}
	if start.flags&EventDisableTiming != 0 || end.flags&EventDisableTiming != 0 {
		return 0, gpu.Errorf(gpu.ErrorInvalidHandle, op, "an event was created with EventDisableTiming")
	}
	if !start.recorded || !end.recorded {
		return 0, gpu.Errorf(gpu.ErrorInvalidHandle, op, "an event was never recorded")
	}
	if start.Query() != nil || end.Query() != nil {
		return 0, gpu.ErrNotReady
	}
	_, t0 := start.sig.Timestamps()
	_, t1 := end.sig.Timestamps()
	return time.Duration(int64(t1) - int64(t0)), nil
}

// ElapsedMillis is Elapsed in milliseconds, as hipEventElapsedTime reports.
func ElapsedMillis(start, end *Event) (float32, error) {
	d, err := Elapsed(start, end)
	return float32(d.Seconds() * 1e3), err
}

// Destroy releases the event (hipEventDestroy). A stream still waiting on
// it fails with an invalid-signal error rather than hanging.
func (ev *Event) Destroy() error {
	if ev == nil {
		return gpu.Errorf(gpu.ErrorInvalidHandle, "event destroy", "nil event")
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.destroyed {
		return gpu.Errorf(gpu.ErrorInvalidHandle, "event destroy", "event already destroyed")
	}
	ev.destroyed = true
	return gpu.Wrap("event destroy", ev.sig.Destroy())
}
