package spi

// IPCMemory is implemented by agent drivers whose memory can be shared with
// other processes (hipIpcGetMemHandle, hsa_amd_ipc_memory_create). Sharing
// is opt-in: only memory from IPCPool can be exported, so ordinary
// allocations keep whatever the driver gives them. Agents whose drivers
// lack it answer ErrNotSupported.
//
// Payloads come from another process: OpenMemory must treat every byte as
// untrusted, and refuse what does not name memory the exporter made for
// sharing, of at least size bytes.
type IPCMemory interface {
	// IPCTag names the driver in handles ("cpu", "cuda", "rocm"), so a
	// handle of one driver is refused by another's agents.
	IPCTag() string
	// IPCPool is the pool exportable memory is allocated from.
	IPCPool() (PoolDriver, error)
	// ExportMemory gives the driver's part of a handle for the allocation
	// of IPCPool at base of size bytes: at most 96 bytes (a handle is 128,
	// 32 of them rocr's envelope).
	ExportMemory(base uintptr, size uint64) ([]byte, error)
	// OpenMemory maps, in this process, memory that process pid exported
	// as payload, of size bytes; CloseMemory unmaps it.
	OpenMemory(payload []byte, pid int, size uint64) (uintptr, error)
	CloseMemory(addr uintptr, size uint64) error
}

// IPCSignals is implemented by agent drivers whose signals can be shared
// with other processes (hipIpcGetEventHandle, hsa_amd_ipc_signal_create).
// Without it IPC events are ErrNotSupported. A shared signal's backend must
// work from either process: its value lives in memory both map.
type IPCSignals interface {
	// NewIPCSignal makes a shareable signal of initial value 0 and the
	// driver's part of its handle (at most 96 bytes).
	NewIPCSignal() (SignalBackend, []byte, error)
	// OpenIPCSignal opens the signal process pid exported as payload
	// (untrusted bytes, as for OpenMemory).
	OpenIPCSignal(payload []byte, pid int) (SignalBackend, error)
}
