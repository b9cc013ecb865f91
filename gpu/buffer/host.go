package buffer

import (
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostmem"
)

// Host is page-locked, fine-grained host memory visible to every agent
// (hipHostMalloc). The host reads and writes it through Slice; kernels and
// copies on any device use it directly. Order host access after device
// work with a stream or event synchronize, as in HIP.
type Host[T any] struct {
	mem[T]
}

// NewHost allocates n elements of T of host memory from dev's fine-grained
// pool, visible to every device.
func NewHost[T any](dev *gpu.Device, n int) (*Host[T], error) {
	h := &Host[T]{}
	if err := core.InitMem[T](&h.m, dev, n, true); err != nil {
		return nil, err
	}
	return h, nil
}

// Slice is the memory as a Go slice; it is valid until Free or
// gpu.Shutdown, and nil after.
func (h *Host[T]) Slice() []T {
	if h == nil || !h.m.Live() {
		return nil
	}
	return unsafe.Slice((*T)(hostmem.At(h.m.Addr())), h.m.Len())
}

// Free waits for pending work and releases the memory (hipHostFree); a
// nil Host frees nothing and succeeds, as hipHostFree(nullptr).
func (h *Host[T]) Free() error {
	if h == nil {
		return nil // as hipHostFree(nullptr)
	}
	return h.m.Free()
}

// SetManualDeps makes the program responsible for ordering the host buffer's uses
// on different streams (with events, as in HIP): no BARRIER_AND is
// inserted for it. Free and synchronous copies still wait for its work.
func (h *Host[T]) SetManualDeps(on bool) { h.base().SetManual(on) }
