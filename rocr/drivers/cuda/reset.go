package cuda

import (
	"errors"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/hipgo/hipgo/rocr"
)

// Reset rebuilds the device once rocr has destroyed its queues and freed
// its memory: the modules are unloaded, the primary context is reset (a
// kernel fault leaves it unusable) and retained again, the signal slabs
// are registered again if this device's context held them, and the
// timestamp kernel is loaded again. Calls into a faulted context fail:
// their errors are of no interest, the reset releases what they name.
func (d *device) Reset() error {
	_ = d.Close()
	live.mu.Lock()
	holds := live.d != nil && len(live.d.devs) > 0 && live.d.devs[0] == d
	var slabs []slab
	if holds {
		slabs = live.slabs
		live.slabs, live.snap = nil, nil
	}
	live.mu.Unlock()
	if holds {
		_ = d.with(func() error {
			for _, s := range slabs {
				if s.dev != 0 {
					call(d.api.cuMemHostUnregister, s.host)
				}
			}
			return nil
		})
	}
	var errs []error
	call(d.api.cuDevicePrimaryCtxRelease, d.ordinal)
	if d.api.cuDevicePrimaryCtxReset != 0 {
		if r := call(d.api.cuDevicePrimaryCtxReset, d.ordinal); r != cudaSuccess {
			errs = append(errs, cuErr("reset", "cuDevicePrimaryCtxReset", r))
		}
	}
	var ctx uintptr
	if r := res(purego.SyscallN(d.api.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&ctx)), d.ordinal)); r != cudaSuccess {
		d.ctx = 0
		return errors.Join(append(errs, cuErr("reset", "cuDevicePrimaryCtxRetain", r))...)
	}
	d.ctx = ctx
	for _, s := range slabs {
		if err := registerSlab(s.host, s.size); err != nil {
			errs = append(errs, err)
		}
	}
	if err := d.loadStamp(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

var _ rocr.Resetter = (*device)(nil)
