package buffer

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
)

// NewShareable allocates n elements of T on dev whose memory other
// processes can open: a Buffer like New's, from the device's pool of
// exportable memory (hipMalloc whose pointer hipIpcGetMemHandle takes).
// Sharing is opt-in, as CUDA's shareable handle types are: memory from
// New cannot be exported. On the cpu agent each shareable buffer is a
// memfd of its own, in whole pages.
func NewShareable[T any](dev *gpu.Device, n int) (*Buffer[T], error) {
	b := &Buffer[T]{}
	if err := core.InitShareable[T](&b.m, dev, n); err != nil {
		return nil, err
	}
	return b, nil
}

// IPCHandle is a handle another process opens with OpenIPC
// (hipIpcGetMemHandle). The buffer must come from NewShareable; a view,
// an empty buffer or a buffer opened from a handle has none. The handle
// names the memory while the buffer is live here.
//
// Dependencies are tracked in each process: work of this process on the
// buffer is ordered by this process's streams, and ordering with the
// other process goes through interprocess events (stream.EventInterprocess).
func (b *Buffer[T]) IPCHandle() (gpu.IPCHandle, error) {
	if b == nil {
		return gpu.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidValue, "ipc get mem handle", "nil buffer")
	}
	return b.m.ExportIPC()
}

// OpenIPC maps memory that another process shared as h, for dev, as a
// Buffer of n elements of T, where n is the handle's size over T's
// (hipIpcOpenMemHandle). The Buffer is dev's, with dependencies tracked
// in this process as any Buffer's; Free waits for its work here and
// unmaps it (hipIpcCloseMemHandle); the exporter's memory stays. A second
// Free is an error.
//
// A handle of this process, of another driver, of an event, or one that
// does not name live shareable memory of its exporter is refused with an
// error wrapping gpu.ErrInvalidValue. What happens when the exporter
// frees the memory first depends on the driver: the cpu agent keeps the
// pages mapped here until Free; on cuda and rocm the memory must outlive
// every process that opened it, as in CUDA and HIP.
func OpenIPC[T any](dev *gpu.Device, h gpu.IPCHandle) (*Buffer[T], error) {
	b := &Buffer[T]{}
	if err := core.InitOpened[T](&b.m, dev, h); err != nil {
		return nil, err
	}
	return b, nil
}
