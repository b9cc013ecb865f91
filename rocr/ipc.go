package rocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"sync"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// IPC handle layout: a fixed envelope around the driver's payload. Every
// field is checked when a handle is opened; the payload is then the
// driver's to check.
const (
	IPCHandleSize  = 128
	ipcPayloadSize = IPCHandleSize - ipcHeader
	ipcHeader      = 32
	ipcVersion     = 1
	ipcMagic       = "hipgoIPC"
	// ipcMaxSize bounds a handle's size: more than any device holds.
	ipcMaxSize = 1 << 50
)

// ipcKind is what a handle shares.
type ipcKind uint8

// Kinds of handle.
const (
	ipcKindMemory ipcKind = 1
	ipcKindSignal ipcKind = 2
)

func (k ipcKind) String() string {
	switch k {
	case ipcKindMemory:
		return "memory"
	case ipcKindSignal:
		return "signal"
	}
	return fmt.Sprintf("ipcKind(%d)", uint8(k))
}

// IPCHandle is a handle to memory or a signal of another process: plain
// bytes that the program passes on by any means (a pipe, a socket, a
// file). Its layout:
//
//	[0, 8)    magic "hipgoIPC"
//	[8, 10)   version (little endian)
//	10        kind (ipcKind)
//	11        payload length
//	[12, 16)  exporting process id
//	[16, 24)  driver tag, NUL-padded
//	[24, 32)  size in bytes
//	[32, 128) driver payload, zero after its length
type IPCHandle [IPCHandleSize]byte

// ParseIPCHandle reads a handle from bytes another process sent: exactly
// IPCHandleSize of them, with a valid envelope.
func ParseIPCHandle(b []byte) (IPCHandle, error) {
	var h IPCHandle
	if len(b) != IPCHandleSize {
		return h, hsa.Errorf(hsa.StatusErrorInvalidArgument, "ipc handle", "%d bytes: an IPC handle is %d", len(b), IPCHandleSize)
	}
	copy(h[:], b)
	if _, err := h.decode(); err != nil {
		return IPCHandle{}, err
	}
	return h, nil
}

// ipcFields is a decoded envelope.
type ipcFields struct {
	kind    ipcKind
	pid     int
	tag     string
	size    uint64
	payload []byte
}

func newIPCHandle(f ipcFields) (IPCHandle, error) {
	var h IPCHandle
	if len(f.payload) > ipcPayloadSize || len(f.tag) > 8 {
		return h, hsa.Errorf(hsa.StatusErrorInvalidArgument, "ipc handle", "driver %q payload of %d bytes: at most %d", f.tag, len(f.payload), ipcPayloadSize)
	}
	copy(h[0:8], ipcMagic)
	binary.LittleEndian.PutUint16(h[8:], ipcVersion)
	h[10] = byte(f.kind)
	h[11] = byte(len(f.payload))
	binary.LittleEndian.PutUint32(h[12:], uint32(f.pid))
	copy(h[16:24], f.tag)
	binary.LittleEndian.PutUint64(h[24:], f.size)
	copy(h[ipcHeader:], f.payload)
	return h, nil
}

// decode checks the envelope: what a forged, corrupted or truncated
// handle gets wrong first.
func (h *IPCHandle) decode() (ipcFields, error) {
	const op = "ipc handle"
	var f ipcFields
	if string(h[0:8]) != ipcMagic {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "not an IPC handle (bad magic)")
	}
	if v := binary.LittleEndian.Uint16(h[8:]); v != ipcVersion {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "version %d: this runtime reads version %d", v, ipcVersion)
	}
	f.kind = ipcKind(h[10])
	if f.kind != ipcKindMemory && f.kind != ipcKindSignal {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "unknown kind %d", h[10])
	}
	n := int(h[11])
	if n == 0 || n > ipcPayloadSize {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "payload of %d bytes: want 1 to %d", n, ipcPayloadSize)
	}
	if bytes.IndexFunc(h[ipcHeader+n:], func(r rune) bool { return r != 0 }) >= 0 {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "bytes after the payload are not zero")
	}
	pid := binary.LittleEndian.Uint32(h[12:])
	if pid == 0 || pid >= 1<<22 { // Linux's PID_MAX_LIMIT
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "process id %d is not one", pid)
	}
	f.pid = int(pid)
	tag := h[16:24]
	if i := bytes.IndexByte(tag, 0); i >= 0 {
		if bytes.IndexFunc(tag[i:], func(r rune) bool { return r != 0 }) >= 0 {
			return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "driver tag is not NUL-padded")
		}
		tag = tag[:i]
	}
	if len(tag) == 0 {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "no driver tag")
	}
	f.tag = string(tag)
	f.size = binary.LittleEndian.Uint64(h[24:])
	switch {
	case f.kind == ipcKindMemory && (f.size == 0 || f.size > ipcMaxSize):
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "memory of %d bytes: want 1 to %d", f.size, uint64(ipcMaxSize))
	case f.kind == ipcKindSignal && f.size != 8:
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "signal of %d bytes: a signal is 8", f.size)
	}
	f.payload = h[ipcHeader : ipcHeader+n]
	return f, nil
}

// Size is the size in bytes the handle claims, 0 for an invalid handle.
func (h IPCHandle) Size() uint64 {
	f, err := h.decode()
	if err != nil {
		return 0
	}
	return f.size
}

// check decodes h for agent a and the kind wanted: the handle must be of
// a's driver and made by another process.
func (h *IPCHandle) check(op string, a *Agent, want ipcKind) (ipcFields, error) {
	f, err := h.decode()
	if err != nil {
		return f, hsa.Errorf(hsa.StatusOf(err), op, "%w", err)
	}
	if f.kind != want {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "a %s handle, not a %s handle", f.kind, want)
	}
	tag := ""
	if m, ok := a.drv.(spi.IPCMemory); ok {
		tag = m.IPCTag()
	}
	if f.tag != tag {
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "handle of driver %q opened on %s (driver %q)", f.tag, a, tag)
	}
	if f.pid == os.Getpid() {
		// As CUDA and HIP: a process uses its own memory directly.
		return f, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "handle was made by this process: use the buffer itself: %w", hsa.ErrOwnIPCHandle)
	}
	return f, nil
}

func (a *Agent) ipcMemory(op string) (spi.IPCMemory, error) {
	if err := a.check(op); err != nil {
		return nil, err
	}
	m, ok := a.drv.(spi.IPCMemory)
	if !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s cannot share memory between processes", a)
	}
	return m, nil
}

// ipcPools caches each agent's IPC pool.
var ipcPools struct {
	mu sync.Mutex
	m  map[*Agent]*Pool
}

// IPCPool returns the pool whose allocations ExportIPC can share with
// other processes (see IPCMemory). Its memory is the agent's, like its
// coarse-grained pool's.
func (a *Agent) IPCPool() (*Pool, error) {
	const op = "ipc malloc"
	m, err := a.ipcMemory(op)
	if err != nil {
		return nil, err
	}
	ipcPools.mu.Lock()
	defer ipcPools.mu.Unlock()
	if p := ipcPools.m[a]; p != nil {
		return p, nil
	}
	pd, err := m.IPCPool()
	if err != nil {
		return nil, err
	}
	p := &Pool{drv: pd, info: pd.Info(), agent: a, ipc: ipcExport}
	if ipcPools.m == nil {
		ipcPools.m = map[*Agent]*Pool{}
	}
	ipcPools.m[a] = p
	return p, nil
}

// forgetIPC drops the IPC pools of a runtime's agents at ShutDown.
func forgetIPC(rt *rtState) {
	ipcPools.mu.Lock()
	defer ipcPools.mu.Unlock()
	for a := range ipcPools.m {
		if a.rt == rt {
			delete(ipcPools.m, a)
		}
	}
}

// Pool.ipc: what a pool has to do with IPC.
const (
	ipcNone   = iota
	ipcExport // IPCPool: its allocations can be exported
	ipcOpened // memory another process exported, opened here
)

// ExportIPC makes a handle for al, an allocation of an IPC pool
// (hipIpcGetMemHandle). The handle stays valid while al is live in this
// process.
func (al *Allocation) ExportIPC() (IPCHandle, error) {
	const op = "ipc get mem handle"
	if al == nil {
		return IPCHandle{}, hsa.Errorf(hsa.StatusErrorInvalidAllocation, op, "nil allocation")
	}
	if al.freed.Load() {
		return IPCHandle{}, hsa.Errorf(hsa.StatusErrorInvalidAllocation, op, "%s was freed", al)
	}
	switch al.pool.ipc {
	case ipcOpened:
		return IPCHandle{}, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%s was opened from another process's handle: only its exporter makes handles", al)
	case ipcNone:
		return IPCHandle{}, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%s is not shareable: allocate it from the agent's IPC pool", al)
	}
	a := al.pool.agent
	m, err := a.ipcMemory(op)
	if err != nil {
		return IPCHandle{}, err
	}
	payload, err := m.ExportMemory(al.Base, al.cap)
	if err != nil {
		return IPCHandle{}, err
	}
	return newIPCHandle(ipcFields{kind: ipcKindMemory, pid: os.Getpid(), tag: m.IPCTag(), size: uint64(al.Size), payload: payload})
}

// openedPool is the pool of memory opened from handles: its Free unmaps.
type openedPool struct {
	m    spi.IPCMemory
	info hsa.PoolInfo
}

func (p *openedPool) Info() hsa.PoolInfo { return p.info }

func (p *openedPool) Allocate(uint64) (uintptr, error) {
	return 0, hsa.Errorf(hsa.StatusErrorInvalidAllocation, "allocate", "memory opened from IPC handles is not allocated")
}

func (p *openedPool) Free(ptr uintptr, size uint64) error { return p.m.CloseMemory(ptr, size) }

// OpenIPC maps the memory a handle of another process names
// (hipIpcOpenMemHandle). The allocation is a's, as an allocation of its
// IPC pool is; its Free unmaps it in this process
// (hipIpcCloseMemHandle), and ShutDown does so for what is left.
func (a *Agent) OpenIPC(h IPCHandle) (*Allocation, error) {
	const op = "ipc open mem handle"
	m, err := a.ipcMemory(op)
	if err != nil {
		return nil, err
	}
	f, err := h.check(op, a, ipcKindMemory)
	if err != nil {
		return nil, err
	}
	pool, err := a.IPCPool()
	if err != nil {
		return nil, err
	}
	if err := a.rt.enter(a, op); err != nil {
		return nil, err
	}
	defer a.creating.Done()
	// As HIP: a handle opened again while its mapping is open gives the
	// same mapping, counted; each Free closes one opening.
	key := openedKey{a, f.pid, string(f.payload), f.size}
	openedIPC.mu.Lock()
	defer openedIPC.mu.Unlock()
	if al := openedIPC.m[key]; al != nil && !al.Freed() {
		al.opens++
		return al, nil
	}
	addr, err := m.OpenMemory(f.payload, f.pid, f.size)
	if err != nil {
		return nil, err
	}
	op2 := &Pool{drv: &openedPool{m: m, info: pool.info}, info: pool.info, agent: a, ipc: ipcOpened}
	al := &Allocation{Base: addr, Size: uintptr(f.size), pool: op2, cap: f.size, opens: 1}
	al.owner.Store(a)
	op2.used.Add(f.size)
	allocs.insert(al)
	if openedIPC.m == nil {
		openedIPC.m = map[openedKey]*Allocation{}
	}
	openedIPC.m[key] = al
	return al, nil
}

// openedKey names one mapping of another process's memory.
type openedKey struct {
	a       *Agent
	pid     int
	payload string
	size    uint64
}

// openedIPC is every open mapping of another process's memory, by handle.
var openedIPC struct {
	mu sync.Mutex
	m  map[openedKey]*Allocation
}

// closeOpening drops one opening of al, an allocation OpenIPC returned,
// and reports whether it was the last, which unmaps it.
func (al *Allocation) closeOpening() bool {
	openedIPC.mu.Lock()
	defer openedIPC.mu.Unlock()
	if al.opens > 1 {
		al.opens--
		return false
	}
	al.opens = 0
	for k, v := range openedIPC.m {
		if v == al {
			delete(openedIPC.m, k)
		}
	}
	return true
}

// NewIPCSignal creates a signal of value 0 that other processes can open
// with the handle it returns (hipIpcGetEventHandle's signal).
func NewIPCSignal(a *Agent) (*Signal, IPCHandle, error) {
	const op = "ipc signal create"
	if err := a.check(op); err != nil {
		return nil, IPCHandle{}, err
	}
	ss, ok := a.drv.(spi.IPCSignals)
	m, ok2 := a.drv.(spi.IPCMemory)
	if !ok || !ok2 {
		return nil, IPCHandle{}, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s cannot share signals between processes", a)
	}
	b, payload, err := ss.NewIPCSignal()
	if err != nil {
		return nil, IPCHandle{}, err
	}
	h, err := newIPCHandle(ipcFields{kind: ipcKindSignal, pid: os.Getpid(), tag: m.IPCTag(), size: 8, payload: payload})
	if err != nil {
		_ = b.Destroy()
		return nil, IPCHandle{}, err
	}
	return newSignalWithBackend(b), h, nil
}

// OpenIPCSignal opens a signal of another process from its handle
// (hipIpcOpenEventHandle's signal). Destroy closes it in this process.
func OpenIPCSignal(a *Agent, h IPCHandle) (*Signal, error) {
	const op = "ipc signal open"
	if err := a.check(op); err != nil {
		return nil, err
	}
	ss, ok := a.drv.(spi.IPCSignals)
	if !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s cannot share signals between processes", a)
	}
	f, err := h.check(op, a, ipcKindSignal)
	if err != nil {
		return nil, err
	}
	b, err := ss.OpenIPCSignal(f.payload, f.pid)
	if err != nil {
		return nil, err
	}
	return newSignalWithBackend(b), nil
}
