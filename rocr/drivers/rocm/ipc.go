package rocm

import (
	"encoding/binary"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Memory shared with other processes is memory of the GPU's
// coarse-grained pool, which hsa_amd_ipc_memory_create exports as it is;
// the opening process maps it for its own agent with
// hsa_amd_ipc_memory_attach, for the size the handle claims, and
// hsa_amd_ipc_memory_detach unmaps it. Signals are made with
// hsa_amd_signal_create(HSA_AMD_SIGNAL_IPC), exported with
// hsa_amd_ipc_signal_create and opened with hsa_amd_ipc_signal_attach.
// ROCR's handle (hsa_amd_ipc_memory_t, eight uint32) is ROCR's to check.
// As in HIP, the exporter must keep the memory until every process that
// opened it has closed it.

// ipcH is hsa_amd_ipc_memory_t (and hsa_amd_ipc_signal_t).
type ipcH [8]uint32

const ipcHBytes = 32

func (h *ipcH) bytes() []byte {
	b := make([]byte, ipcHBytes)
	for i, w := range h {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func ipcHOf(op string, b []byte) (ipcH, error) {
	var h ipcH
	if len(b) != ipcHBytes {
		return h, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "rocm payload of %d bytes: want %d", len(b), ipcHBytes)
	}
	for i := range h {
		h[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return h, nil
}

// devicePool is the agent's coarse-grained GPU pool.
func (a *agent) devicePool(op string) (*pool, error) {
	for _, pd := range a.pools {
		if p, ok := pd.(*pool); ok && p != a.host && p.info.Segment == hsa.SegmentGlobal &&
			p.info.Flags&hsa.FlagCoarseGrained != 0 && p.info.AllocAllowed {
			return p, nil
		}
	}
	return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s has no coarse-grained pool to share", a.info.Name)
}

func (a *agent) alive(op string) error {
	if !a.rt.alive.Load() {
		return hsa.Errorf(hsa.StatusErrorNotInitialized, op, "the rocm driver is closed")
	}
	return nil
}

// IPCTag implements spi.IPCMemory.
func (a *agent) IPCTag() string { return "rocm" }

// IPCPool implements spi.IPCMemory: the device pool itself.
func (a *agent) IPCPool() (spi.PoolDriver, error) { return a.devicePool("ipc malloc") }

// ExportMemory implements spi.IPCMemory.
func (a *agent) ExportMemory(base uintptr, size uint64) ([]byte, error) {
	const op = "ipc get mem handle"
	if err := a.alive(op); err != nil {
		return nil, err
	}
	h, s := a.rt.api.IPCMemoryCreate(base, size)
	if s != hsaSuccess {
		return nil, a.rt.fail(s, op, "hsa_amd_ipc_memory_create of %d bytes at %#x", size, base)
	}
	return h.bytes(), nil
}

// OpenMemory implements spi.IPCMemory.
func (a *agent) OpenMemory(payload []byte, pid int, size uint64) (uintptr, error) {
	const op = "ipc open mem handle"
	if err := a.alive(op); err != nil {
		return 0, err
	}
	h, err := ipcHOf(op, payload)
	if err != nil {
		return 0, err
	}
	ptr, s := a.rt.api.IPCMemoryAttach(&h, size, []agentH{a.h})
	if s != hsaSuccess {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "hsa_amd_ipc_memory_attach of %d bytes: %s: the handle does not name memory process %d shares", size, a.rt.api.StatusString(s), pid)
	}
	return ptr, nil
}

// CloseMemory implements spi.IPCMemory.
func (a *agent) CloseMemory(addr uintptr, _ uint64) error {
	if !a.rt.alive.Load() {
		return nil // hsa_shut_down released it
	}
	if s := a.rt.api.IPCMemoryDetach(addr); s != hsaSuccess {
		return a.rt.fail(s, "ipc close mem handle", "hsa_amd_ipc_memory_detach %#x", addr)
	}
	return nil
}

// NewIPCSignal implements spi.IPCSignals.
func (a *agent) NewIPCSignal() (spi.SignalBackend, []byte, error) {
	const op = "ipc signal create"
	if err := a.alive(op); err != nil {
		return nil, nil, err
	}
	sh, s := a.rt.api.SignalCreateIPC(0)
	if s != hsaSuccess {
		return nil, nil, a.rt.fail(s, op, "hsa_amd_signal_create(HSA_AMD_SIGNAL_IPC)")
	}
	h, s := a.rt.api.IPCSignalCreate(sh)
	if s != hsaSuccess {
		a.rt.api.SignalDestroy(sh)
		return nil, nil, a.rt.fail(s, op, "hsa_amd_ipc_signal_create")
	}
	sig := &signal{rt: a.rt, h: sh, ag: a}
	signals.add(sig)
	return sig, h.bytes(), nil
}

// OpenIPCSignal implements spi.IPCSignals.
func (a *agent) OpenIPCSignal(payload []byte, pid int) (spi.SignalBackend, error) {
	const op = "ipc signal open"
	if err := a.alive(op); err != nil {
		return nil, err
	}
	h, err := ipcHOf(op, payload)
	if err != nil {
		return nil, err
	}
	sh, s := a.rt.api.IPCSignalAttach(&h)
	if s != hsaSuccess {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "hsa_amd_ipc_signal_attach: %s: the handle does not name a signal process %d shares", a.rt.api.StatusString(s), pid)
	}
	sig := &signal{rt: a.rt, h: sh, ag: a}
	signals.add(sig)
	return sig, nil
}

var (
	_ spi.IPCMemory  = (*agent)(nil)
	_ spi.IPCSignals = (*agent)(nil)
)
