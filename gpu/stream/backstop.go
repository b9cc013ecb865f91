package stream

import (
	"runtime"

	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/live"
)

// heldFence is an event's last record. The backstop of an event dropped
// undestroyed holds it, and nothing that points back to the Event.
type heldFence struct {
	f   *core.Fence
	key any // the Event's key in the live registry (a weak pointer)
}

// track registers a new event with the live registry and arms its
// backstop: dropped undestroyed, it is released as Destroy releases it.
// Streams that wait for it hold their own references to its fence, so
// the release never cuts short work that uses it.
func (ev *Event) track() {
	live.AddWeak(core.Scope(ev.dev), ev)
	ev.held.key = live.Key(ev)
	ev.backstop = runtime.AddCleanup(ev, releaseEvent, ev.held)
}

// releaseEvent is the backstop of an event that became unreachable
// undestroyed: nothing can record or destroy it any more, so its fence
// is the cleanup's alone.
func releaseEvent(h *heldFence) {
	if h.f != nil {
		h.f.Release()
		h.f = nil
	}
	live.Collected(h.key, "event")
}
