package rocr

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Function codes of the project's AGENT_DISPATCH packets (HSA leaves
// 0x8000-0xFFFF to applications). Every stream operation is an AQL packet:
// copies, fills and host callbacks included.
const (
	// AgentCopy: Arg[0] dst, Arg[1] src, Arg[2] bytes, Arg[3] CopyFlags.
	AgentCopy uint16 = 0x8001
	// AgentFill: Arg[0] dst, Arg[1] pattern, Arg[2] element count,
	// Arg[3] element size in bytes (1, 2, 4 or 8).
	AgentFill uint16 = 0x8002
	// AgentCallback: Arg[0] a callback id from RegisterCallback.
	AgentCallback uint16 = 0x8003
	// AgentNative: Arg[0] a call id from RegisterNative. Agents with a
	// native stream (cuda) run the call in stream order on it, without
	// draining it (a library such as cuBLAS queues its work there); the
	// others run it as a host callback with stream 0.
	AgentNative uint16 = 0x8004
)

// CopyFlags describe a copy's ends.
const (
	// CopySrcHost: the source is host memory outside any pool (a Go slice).
	CopySrcHost uint64 = 1 << 0
	// CopyDstHost: the destination is host memory outside any pool.
	CopyDstHost uint64 = 1 << 1
)

var callbacks struct {
	mu   sync.Mutex
	m    map[uint64]func() error
	next atomic.Uint64
}

// RegisterCallback stores f for one AgentCallback packet and returns its id.
func RegisterCallback(f func() error) uint64 {
	id := callbacks.next.Add(1)
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

// NativeFunc is a call an AgentNative packet makes with the agent's native
// stream handle (a CUstream on cuda; 0 where the agent has none).
type NativeFunc func(stream uintptr) error

var natives struct {
	mu sync.Mutex
	m  map[uint64]NativeFunc
}

// RegisterNative stores f for one AgentNative packet and returns its id.
func RegisterNative(f NativeFunc) uint64 {
	id := callbacks.next.Add(1) // one id space with callbacks
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

// At converts a device address (pool memory, a ring) into a pointer. Under
// -race the cpu agent's pool memory is Go heap memory kept alive by its
// pool; nocheckptr lets checkptr accept a pointer made from its address.
//
//go:nocheckptr
func At(addr uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), addr) }

var hostBufs struct {
	mu   sync.Mutex
	m    map[uint64][]byte
	next atomic.Uint64
}

// PinHost keeps a Go byte slice alive for one copy packet and returns the
// id an AgentCopy with CopySrcHost or CopyDstHost carries in place of an
// address (Go memory must not travel as a bare integer).
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

// PinnedBytes returns the first n bytes of the slice pinned under id, or
// an error when none is pinned there or it is shorter: what a copy packet's
// host end must satisfy.
func PinnedBytes(id, n uint64) ([]byte, error) {
	b, ok := HostBuffer(id)
	if !ok {
		return nil, Errorf(StatusErrorInvalidArgument, "copy", "host buffer %d is not pinned", id)
	}
	if uint64(len(b)) < n {
		return nil, Errorf(StatusErrorInvalidArgument, "copy", "host buffer of %d bytes is shorter than %d", len(b), n)
	}
	return b[:n], nil
}

// UnpinHost releases the slice pinned under id.
func UnpinHost(id uint64) {
	hostBufs.mu.Lock()
	delete(hostBufs.m, id)
	hostBufs.mu.Unlock()
}
