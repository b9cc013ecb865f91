package rocm

import (
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The fake's interprocess memory: a handle names an allocation; attaching
// maps a copy of its bytes (one process plays both sides), and detaching
// writes the copy back, so a test sees what the "other process" wrote.
type fakeIPC struct {
	ptr  uintptr
	size uint64
}

type fakeIPCState struct {
	handles  map[ipcH]fakeIPC
	signals  map[ipcH]signalH
	attached map[uintptr]fakeIPC // mapped copy -> exported allocation
}

var ipcFakes = map[*fakeHSA]*fakeIPCState{}

func (f *fakeHSA) ipc() *fakeIPCState {
	s := ipcFakes[f]
	if s == nil {
		s = &fakeIPCState{handles: map[ipcH]fakeIPC{}, signals: map[ipcH]signalH{}, attached: map[uintptr]fakeIPC{}}
		ipcFakes[f] = s
	}
	return s
}

func (f *fakeHSA) IPCMemoryCreate(ptr uintptr, size uint64) (ipcH, hsaStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.allocs[ptr]; !ok || n < size {
		return ipcH{}, hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	h := ipcH{0xfa4e, uint32(f.h())}
	f.ipc().handles[h] = fakeIPC{ptr, size}
	f.calls = append(f.calls, "ipc_memory_create")
	return h, hsaSuccess
}

func (f *fakeHSA) IPCMemoryAttach(h *ipcH, size uint64, agents []agentH) (uintptr, hsaStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.ipc().handles[*h]
	if !ok || size > e.size || len(agents) == 0 {
		return 0, hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	p, err := spi.MapAnonymous(uintptr(size))
	if err != nil {
		return 0, hsaStatus(hsa.StatusErrorOutOfResources)
	}
	copy(hostmem.Bytes(p, uintptr(size)), hostmem.Bytes(e.ptr, uintptr(size)))
	f.ipc().attached[p] = fakeIPC{e.ptr, size}
	f.calls = append(f.calls, "ipc_memory_attach")
	return p, hsaSuccess
}

func (f *fakeHSA) IPCMemoryDetach(ptr uintptr) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.ipc().attached[ptr]
	if !ok {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	delete(f.ipc().attached, ptr)
	if _, live := f.allocs[e.ptr]; live {
		copy(hostmem.Bytes(e.ptr, uintptr(e.size)), hostmem.Bytes(ptr, uintptr(e.size)))
	}
	_ = spi.Unmap(ptr, uintptr(e.size))
	f.calls = append(f.calls, "ipc_memory_detach")
	return hsaSuccess
}

func (f *fakeHSA) SignalCreateIPC(initial int64) (signalH, hsaStatus) {
	f.log("amd_signal_create ipc")
	return f.SignalCreate(initial)
}

func (f *fakeHSA) IPCSignalCreate(s signalH) (ipcH, hsaStatus) {
	if _, ok := f.signals.Load(s); !ok {
		return ipcH{}, hsaStatus(hsa.StatusErrorInvalidSignal)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	h := ipcH{0x5167, uint32(f.h())}
	f.ipc().signals[h] = s
	return h, hsaSuccess
}

// IPCSignalAttach gives a second handle on the same value, as a second
// process's signal maps the same memory.
func (f *fakeHSA) IPCSignalAttach(h *ipcH) (signalH, hsaStatus) {
	f.mu.Lock()
	s, ok := f.ipc().signals[*h]
	var nh signalH
	if ok {
		nh = signalH(f.h())
	}
	f.mu.Unlock()
	v, live := f.signals.Load(s)
	if !ok || !live {
		return 0, hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	f.signals.Store(nh, v)
	f.nsignals.Add(1)
	return nh, hsaSuccess
}
