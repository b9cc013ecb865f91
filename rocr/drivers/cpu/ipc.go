package cpu

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/shm"
	"github.com/hipgo/hipgo/rocr/spi"
)

// shared tracks the agent's shared mappings by address.
type shared struct {
	mu sync.Mutex
	m  map[uintptr]*shm.File
}

func (s *shared) put(addr uintptr, f *shm.File) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[uintptr]*shm.File{}
	}
	s.m[addr] = f
	s.mu.Unlock()
}

func (s *shared) take(addr uintptr) *shm.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.m[addr]
	delete(s.m, addr)
	return f
}

func (s *shared) get(addr uintptr) *shm.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[addr]
}

// Shared memory is a sealed memfd per allocation (rocr/internal/shm).

// ipcPool is the agent's pool of exportable memory: coarse-grained device
// memory like its first pool, each allocation a memfd of its own.
type ipcPool struct {
	info hsa.PoolInfo
	a    *agent
}

func (p *ipcPool) Info() hsa.PoolInfo { return p.info }

func (p *ipcPool) Allocate(size uint64) (uintptr, error) {
	addr, f, err := shm.New(size)
	if err != nil {
		return 0, err
	}
	p.a.shared.put(addr, f)
	return addr, nil
}

func (p *ipcPool) Free(ptr uintptr, _ uint64) error {
	f := p.a.shared.take(ptr)
	if f == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "ipc free", "%#x is not shared memory", ptr)
	}
	return shm.Unmap(ptr, f)
}

// IPCTag implements spi.IPCMemory.
func (a *agent) IPCTag() string { return "cpu" }

// IPCPool implements spi.IPCMemory.
func (a *agent) IPCPool() (spi.PoolDriver, error) {
	info := a.pools[0].Info()
	info.Granule = uint64(unix.Getpagesize())
	info.Alignment = info.Granule
	return &ipcPool{info: info, a: a}, nil
}

// ExportMemory implements spi.IPCMemory.
func (a *agent) ExportMemory(base uintptr, _ uint64) ([]byte, error) {
	f := a.shared.get(base)
	if f == nil || !f.Exported() {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "ipc get mem handle", "%#x is not shared memory of this process", base)
	}
	return f.Payload(), nil
}

// OpenMemory implements spi.IPCMemory.
func (a *agent) OpenMemory(payload []byte, pid int, size uint64) (uintptr, error) {
	addr, f, err := shm.Open("ipc open mem handle", payload, pid, size)
	if err != nil {
		return 0, err
	}
	a.shared.put(addr, f)
	return addr, nil
}

// CloseMemory implements spi.IPCMemory.
func (a *agent) CloseMemory(addr uintptr, _ uint64) error {
	f := a.shared.take(addr)
	if f == nil || f.Exported() {
		if f != nil {
			a.shared.put(addr, f)
		}
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "ipc close mem handle", "%#x was not opened from a handle", addr)
	}
	return shm.Unmap(addr, f)
}

// NewIPCSignal implements spi.IPCSignals.
func (a *agent) NewIPCSignal() (spi.SignalBackend, []byte, error) { return shm.NewSignal() }

// OpenIPCSignal implements spi.IPCSignals.
func (a *agent) OpenIPCSignal(payload []byte, pid int) (spi.SignalBackend, error) {
	return shm.OpenSignal(payload, pid)
}
