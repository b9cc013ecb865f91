package rocm

import (
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// optional pairs the functions the driver does without with their slots.
func (l *lib) optional() []struct {
	name string
	p    *uintptr
} {
	f := &l.fn
	return []struct {
		name string
		p    *uintptr
	}{
		{"hsa_amd_ipc_memory_create", &f.ipcCreate}, {"hsa_amd_ipc_memory_attach", &f.ipcAttach},
		{"hsa_amd_ipc_memory_detach", &f.ipcDetach}, {"hsa_amd_signal_create", &f.amdSignalCreate},
		{"hsa_amd_ipc_signal_create", &f.ipcSignalCreate}, {"hsa_amd_ipc_signal_attach", &f.ipcSignalAttach},
	}
}

func notSupported() hsaStatus { return hsaStatus(hsa.StatusErrorNotSupported) }

func (l *lib) IPCMemoryCreate(ptr uintptr, size uint64) (ipcH, hsaStatus) {
	var h ipcH
	if l.fn.ipcCreate == 0 {
		return h, notSupported()
	}
	r, _, _ := purego.SyscallN(l.fn.ipcCreate, ptr, uintptr(size), uintptr(unsafe.Pointer(&h)))
	return h, st(r)
}

func (l *lib) IPCMemoryAttach(h *ipcH, size uint64, agents []agentH) (uintptr, hsaStatus) {
	if l.fn.ipcAttach == 0 || len(agents) == 0 {
		return 0, notSupported()
	}
	var ptr uintptr
	r, _, _ := purego.SyscallN(l.fn.ipcAttach, uintptr(unsafe.Pointer(h)), uintptr(size), uintptr(len(agents)),
		uintptr(unsafe.Pointer(&agents[0])), uintptr(unsafe.Pointer(&ptr)))
	return ptr, st(r)
}

func (l *lib) IPCMemoryDetach(ptr uintptr) hsaStatus {
	if l.fn.ipcDetach == 0 {
		return notSupported()
	}
	r, _, _ := purego.SyscallN(l.fn.ipcDetach, ptr)
	return st(r)
}

func (l *lib) SignalCreateIPC(initial int64) (signalH, hsaStatus) {
	var s signalH
	if l.fn.amdSignalCreate == 0 {
		return 0, notSupported()
	}
	r, _, _ := purego.SyscallN(l.fn.amdSignalCreate, uintptr(initial), 0, 0, signalAttrIPC, uintptr(unsafe.Pointer(&s)))
	return s, st(r)
}

func (l *lib) IPCSignalCreate(s signalH) (ipcH, hsaStatus) {
	var h ipcH
	if l.fn.ipcSignalCreate == 0 {
		return h, notSupported()
	}
	r, _, _ := purego.SyscallN(l.fn.ipcSignalCreate, uintptr(s), uintptr(unsafe.Pointer(&h)))
	return h, st(r)
}

func (l *lib) IPCSignalAttach(h *ipcH) (signalH, hsaStatus) {
	var s signalH
	if l.fn.ipcSignalAttach == 0 {
		return 0, notSupported()
	}
	r, _, _ := purego.SyscallN(l.fn.ipcSignalAttach, uintptr(unsafe.Pointer(h)), uintptr(unsafe.Pointer(&s)))
	return s, st(r)
}
