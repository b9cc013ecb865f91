package stream

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/rocr"
)

// An interprocess event is one signal that every process holding the
// event maps: Record sets it and queues a packet that completes it, and
// WaitEvent, Synchronize and Query read it, whichever process recorded.
// As in CUDA, waiting for an event nobody recorded yet returns at once,
// so the processes agree by other means when a record has been made.

// makeShared gives a new interprocess event its signal and handle.
func (ev *Event) makeShared() error {
	const op = "event create"
	if ev.flags&EventDisableTiming == 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "EventInterprocess needs EventDisableTiming")
	}
	sig, h, err := rocr.NewIPCSignal(ev.dev.Agent())
	if err != nil {
		return errs.Wrap(op, err)
	}
	ev.shared, ev.handle = core.NewSharedFence(sig), h
	ev.held.f = ev.shared
	return nil
}

// IPCHandle is the handle another process opens with OpenIPCEvent
// (hipIpcGetEventHandle). The event must have been made with
// EventInterprocess in this process.
func (ev *Event) IPCHandle() (gpu.IPCHandle, error) {
	const op = "ipc get event handle"
	if ev == nil {
		return gpu.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidValue, op, "nil event") // as HIP's hipIpcGetEventHandle(h, nullptr)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if err := ev.checkLocked(op); err != nil {
		return gpu.IPCHandle{}, err
	}
	if ev.shared == nil {
		return gpu.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidHandle, op, "event was not created with EventInterprocess") // hipErrorInvalidResourceHandle, as HIP
	}
	if ev.opened {
		return gpu.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidValue, op, "event was opened from a handle: its exporter's handle is the one")
	}
	return ev.handle, nil
}

// OpenIPCEvent opens, for dev, an event another process shared as h
// (hipIpcOpenEventHandle). Its streams of dev may record it and wait for
// it; the event's flags are EventInterprocess|EventDisableTiming. Destroy
// closes it here once the work that uses it is done. The handle is
// checked as buffer.OpenIPC checks one.
func OpenIPCEvent(dev *gpu.Device, h gpu.IPCHandle) (*Event, error) {
	const op = "ipc open event handle"
	if err := dev.Valid(); err != nil {
		return nil, errs.Wrap(op, err)
	}
	ev := &Event{dev: dev, gen: core.Gen(dev), flags: EventInterprocess | EventDisableTiming, opened: true, held: &heldFence{}}
	sig, err := rocr.OpenIPCSignal(dev.Agent(), h)
	if err != nil {
		return nil, errs.Wrap(op, err)
	}
	ev.shared = core.NewSharedFence(sig)
	ev.held.f = ev.shared
	ev.track()
	return ev, nil
}

// recordShared is Record of an interprocess event.
func (s *Stream) recordShared(op string, ev *Event) error {
	// Held across the submission: a Destroy meanwhile must not end the
	// signal the packet completes.
	ev.mu.Lock()
	if err := ev.checkLocked(op); err != nil {
		ev.mu.Unlock()
		return err
	}
	shared := ev.shared
	shared.Retain()
	ev.mu.Unlock()
	defer shared.Release()
	f, err := s.core().RecordShared(op, shared)
	if err != nil {
		return err
	}
	f.Release() // the stream holds its own
	return nil
}
