package cuda

import (
	"encoding/binary"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/shm"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Memory shared with other processes is cuMemAlloc memory, as the device
// pool's is: cuIpcGetMemHandle takes it as it is, with no pool and no
// shareable handle type to set up (a cuMemPoolCreate pool would need
// CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR and cuMemPoolExportPointer;
// hipgo's stream-ordered pools carve their blocks out of shared
// allocations, so their memory is never exported). The opening process
// maps it with cuIpcOpenMemHandle(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
// so any device of the host may open it, and cuMemGetAddressRange checks
// that the mapping holds the size the handle claims. The CUDA handle is
// the driver's own secret: a guessed one opens nothing the driver does
// not recognize. As in CUDA, the exporter must keep the memory until
// every process that opened it has closed it.

const (
	ipcHandleBytes    = 64  // CUipcMemHandle, CUipcEventHandle
	ipcLazyEnablePeer = 0x1 // CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
	cudaMapFailed     = 205 // CUDA_ERROR_MAP_FAILED
	cudaInvalidHandle = 400
)

// ipcHandle is a CUipcMemHandle or CUipcEventHandle: 64 opaque bytes.
type ipcHandle [ipcHandleBytes]byte

// byValue lays out the arguments of fn(first, handle, rest...) where the
// handle is a 64-byte struct passed by value: on amd64 (System V) such a
// struct goes on the stack after the six integer registers, which take
// first and rest; on arm64 (AAPCS64) the caller passes a pointer to a
// copy, which h is.
func byValue(first uintptr, h *ipcHandle, rest ...uintptr) []uintptr {
	if runtime.GOARCH != "amd64" {
		return append([]uintptr{first, uintptr(unsafe.Pointer(h))}, rest...)
	}
	args := make([]uintptr, 6, 6+ipcHandleBytes/8)
	args[0] = first
	copy(args[1:], rest)
	for i := 0; i < ipcHandleBytes; i += 8 {
		args = append(args, uintptr(binary.LittleEndian.Uint64(h[i:])))
	}
	return args
}

// ipcPool is the pool of exportable memory: cuMemAlloc, like devicePool.
type ipcPool struct{ devicePool }

func (d *device) ipcAPI(op string) error {
	a := d.api
	if a.cuIpcGetMemHandle == 0 || a.cuIpcOpenMemHandle == 0 || a.cuIpcCloseMemHandle == 0 || a.cuMemGetAddressRange == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks cuIpcGetMemHandle, cuIpcOpenMemHandle_v2, cuIpcCloseMemHandle or cuMemGetAddressRange_v2")
	}
	return nil
}

// IPCTag implements spi.IPCMemory.
func (d *device) IPCTag() string { return "cuda" }

// IPCPool implements spi.IPCMemory.
func (d *device) IPCPool() (spi.PoolDriver, error) {
	if err := d.ipcAPI("ipc malloc"); err != nil {
		return nil, err
	}
	return &ipcPool{devicePool{pool{dev: d, info: d.pools[0].Info()}}}, nil
}

// ExportMemory implements spi.IPCMemory.
func (d *device) ExportMemory(base uintptr, _ uint64) ([]byte, error) {
	const op = "ipc get mem handle"
	if err := d.ipcAPI(op); err != nil {
		return nil, err
	}
	h := new(ipcHandle)
	err := d.with(func() error {
		if r := res(purego.SyscallN(d.api.cuIpcGetMemHandle, uintptr(unsafe.Pointer(h)), base)); r != cudaSuccess {
			return cuErr(op, "cuIpcGetMemHandle", r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h[:], nil
}

// OpenMemory implements spi.IPCMemory.
func (d *device) OpenMemory(payload []byte, pid int, size uint64) (uintptr, error) {
	const op = "ipc open mem handle"
	if err := d.ipcAPI(op); err != nil {
		return 0, err
	}
	if len(payload) != ipcHandleBytes {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "cuda payload of %d bytes: want %d", len(payload), ipcHandleBytes)
	}
	h := new(ipcHandle)
	copy(h[:], payload)
	var ptr uintptr
	err := d.with(func() error {
		r := res(purego.SyscallN(d.api.cuIpcOpenMemHandle, byValue(uintptr(unsafe.Pointer(&ptr)), h, ipcLazyEnablePeer)...))
		runtime.KeepAlive(h)
		if r != cudaSuccess {
			if r == cudaInvalidValue || r == cudaInvalidHandle || r == cudaMapFailed {
				return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "cuIpcOpenMemHandle: %v: the handle does not name live memory of process %d", r, pid)
			}
			return cuErr(op, "cuIpcOpenMemHandle", r)
		}
		var base, n uintptr
		if r := res(purego.SyscallN(d.api.cuMemGetAddressRange, uintptr(unsafe.Pointer(&base)), uintptr(unsafe.Pointer(&n)), ptr)); r != cudaSuccess || base != ptr || uint64(n) < size {
			call(d.api.cuIpcCloseMemHandle, ptr)
			return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "handle claims %d bytes: process %d shared %d", size, pid, n)
		}
		return nil
	})
	return ptr, err
}

// CloseMemory implements spi.IPCMemory.
func (d *device) CloseMemory(addr uintptr, _ uint64) error {
	return d.do("ipc close mem handle", "cuIpcCloseMemHandle", d.api.cuIpcCloseMemHandle, addr)
}

// An interprocess event's signal is a shared page of host memory
// (rocr/internal/shm), not a CUDA IPC event: hipgo's events are signals,
// which the host completes when the stream's progress passes the record,
// and a waiting stream in another process waits for the value on the
// host. CUDA's cuIpcOpenEventHandle events cannot be waited for by value
// or completed by the host, so they would not serve.

// NewIPCSignal implements spi.IPCSignals.
func (d *device) NewIPCSignal() (spi.SignalBackend, []byte, error) { return shm.NewSignal() }

// OpenIPCSignal implements spi.IPCSignals.
func (d *device) OpenIPCSignal(payload []byte, pid int) (spi.SignalBackend, error) {
	return shm.OpenSignal(payload, pid)
}
