package hostref

import (
	"sync"
	"sync/atomic"
)

// ids is the id space of callbacks, native calls and the runtime's other
// packet descriptors (2-D copies), so one id names one thing.
var ids atomic.Uint64

// NewID returns an id no other registration has.
func NewID() uint64 { return ids.Add(1) }

var callbacks struct {
	mu    sync.Mutex
	m     map[uint64]func() error
	hooks map[uint64]func(error) // RegisterCallbackOr's failure hooks
}

// RegisterCallback stores f for one aql.AgentCallback packet and returns its id.
func RegisterCallback(f func() error) uint64 {
	id := NewID()
	callbacks.mu.Lock()
	if callbacks.m == nil {
		callbacks.m = map[uint64]func() error{}
	}
	callbacks.m[id] = f
	callbacks.mu.Unlock()
	return id
}

// TakeCallback removes and returns the callback with id.
func TakeCallback(id uint64) (func() error, bool) {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	f, ok := callbacks.m[id]
	delete(callbacks.m, id)
	return f, ok
}

// RegisterCallbackOr is RegisterCallback of f with failed, which runs
// instead of f, with the failure, when the packet is discarded because its
// queue failed or was destroyed (DiscardCallback, FailCallback): a host
// function that learns of the failure of the work before it, at no cost
// to the packet that runs.
func RegisterCallbackOr(f func() error, failed func(error)) uint64 {
	id := NewID()
	run := func() error {
		callbacks.mu.Lock()
		delete(callbacks.hooks, id)
		callbacks.mu.Unlock()
		return f()
	}
	callbacks.mu.Lock()
	if callbacks.m == nil {
		callbacks.m = map[uint64]func() error{}
	}
	if callbacks.hooks == nil {
		callbacks.hooks = map[uint64]func(error){}
	}
	callbacks.m[id] = run
	callbacks.hooks[id] = failed
	callbacks.mu.Unlock()
	return id
}

// DiscardCallback removes the callback with id, which will not run: its
// packet was dropped with err. A failure hook of RegisterCallbackOr runs
// with err (on the calling goroutine) unless err is nil, which drops it.
func DiscardCallback(id uint64, err error) {
	callbacks.mu.Lock()
	delete(callbacks.m, id)
	h := callbacks.hooks[id]
	delete(callbacks.hooks, id)
	callbacks.mu.Unlock()
	if h != nil && err != nil {
		h(err)
	}
}

// FailCallback runs the failure hook of the callback with id, already
// taken, whose work was dropped with err before it ran.
func FailCallback(id uint64, err error) { DiscardCallback(id, err) }

// PendingCallbacks is the number of callbacks registered that have neither
// run nor been discarded.
func PendingCallbacks() int {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	n := len(callbacks.m)
	for id := range callbacks.hooks {
		if _, ok := callbacks.m[id]; !ok {
			n++ // taken by a queue, not run yet
		}
	}
	return n
}

// NativeFunc is a call an aql.AgentNative packet makes with the agent's native
// stream handle (a CUstream on cuda; 0 where the agent has none).
type NativeFunc func(stream uintptr) error

var natives struct {
	mu sync.Mutex
	m  map[uint64]NativeFunc
}

// RegisterNative stores f for one aql.AgentNative packet and returns its id.
func RegisterNative(f NativeFunc) uint64 {
	id := NewID()
	natives.mu.Lock()
	if natives.m == nil {
		natives.m = map[uint64]NativeFunc{}
	}
	natives.m[id] = f
	natives.mu.Unlock()
	return id
}

// TakeNative removes and returns the native call with id.
func TakeNative(id uint64) (NativeFunc, bool) {
	natives.mu.Lock()
	defer natives.mu.Unlock()
	f, ok := natives.m[id]
	delete(natives.m, id)
	return f, ok
}

var hostBufs struct {
	mu   sync.Mutex
	m    map[uint64][]byte
	next atomic.Uint64
}

// PinHost keeps a Go byte slice alive for one copy packet and returns the
// id an aql.AgentCopy with aql.CopySrcHost or aql.CopyDstHost carries in
// place of an address.
func PinHost(b []byte) uint64 {
	id := hostBufs.next.Add(1)
	hostBufs.mu.Lock()
	if hostBufs.m == nil {
		hostBufs.m = map[uint64][]byte{}
	}
	hostBufs.m[id] = b
	hostBufs.mu.Unlock()
	return id
}

// HostBuffer returns the slice pinned under id.
func HostBuffer(id uint64) ([]byte, bool) {
	hostBufs.mu.Lock()
	defer hostBufs.mu.Unlock()
	b, ok := hostBufs.m[id]
	return b, ok
}

// UnpinHost releases the slice pinned under id.
func UnpinHost(id uint64) {
	hostBufs.mu.Lock()
	delete(hostBufs.m, id)
	hostBufs.mu.Unlock()
}

// PinnedHostBuffers is the number of slices pinned and not yet released.
func PinnedHostBuffers() int {
	hostBufs.mu.Lock()
	defer hostBufs.mu.Unlock()
	return len(hostBufs.m)
}
