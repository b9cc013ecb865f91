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
	mu sync.Mutex
	m  map[uint64]func() error
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

// PendingCallbacks is the number of callbacks registered that have neither
// run nor been discarded.
func PendingCallbacks() int {
	callbacks.mu.Lock()
	defer callbacks.mu.Unlock()
	return len(callbacks.m)
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
