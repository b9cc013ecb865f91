package cuda

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
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
	ctx, err := d.renewContext()
	if err != nil {
		d.ctx = 0
		return errors.Join(append(errs, err)...)
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

var _ spi.Resetter = (*device)(nil)

// renewContext releases the primary context, resets it and retains a
// fresh one, on a thread where no context is current: this thread may
// hold the faulted context from an inline launch, and calls made with it
// current return its sticky error (on the H200, the retain did).
func (d *device) renewContext() (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	call(d.api.cuCtxSetCurrent, 0)
	call(d.api.cuDevicePrimaryCtxRelease, d.ordinal)
	var errs []error
	if d.api.cuDevicePrimaryCtxReset == 0 {
		errs = append(errs, hsa.Errorf(hsa.StatusErrorNotSupported, "reset", "libcuda lacks cuDevicePrimaryCtxReset"))
	} else if r := call(d.api.cuDevicePrimaryCtxReset, d.ordinal); r != cudaSuccess {
		errs = append(errs, cuErr("reset", "cuDevicePrimaryCtxReset", r))
	}
	var ctx uintptr
	if r := res(purego.SyscallN(d.api.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&ctx)), d.ordinal)); r != cudaSuccess {
		if len(errs) == 0 && r.lost() {
			// Measured on the H200 (driver 580, benchmarks/peers/
			// reset_probe.c): after a kernel fault, release, reset and
			// retain of the primary context, from any thread, still
			// return the fault. CUDA keeps it for the life of the process.
			return 0, hsa.Newf(hsa.ErrDeviceLost, r.status(), "reset", "cuDevicePrimaryCtxRetain after cuDevicePrimaryCtxReset: %v: the CUDA driver keeps a kernel fault for the rest of the process; restart the process to use this GPU again", r)
		}
		return 0, errors.Join(append(errs, cuErr("reset", "cuDevicePrimaryCtxRetain", r))...)
	}
	// The reset's error matters only if the new context is unusable.
	if r := call(d.api.cuCtxSetCurrent, ctx); r != cudaSuccess {
		return 0, errors.Join(append(errs, cuErr("reset", "cuCtxSetCurrent", r))...)
	}
	call(d.api.cuCtxSetCurrent, 0)
	return ctx, nil
}
