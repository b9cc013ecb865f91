package cuda

import (
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// MaxActiveGroups implements spi.Occupancy with the driver's occupancy
// calculator (cuOccupancyMaxActiveBlocksPerMultiprocessor).
func (d *device) MaxActiveGroups(ks *hsa.KernelSymbol, groupSize, dynGroupMem int) (int, error) {
	const op = "occupancy"
	k, err := d.occupancyKernel(op, ks)
	if err != nil {
		return 0, err
	}
	var n int32
	err = d.with(func() error {
		if r := res(purego.SyscallN(d.api.cuOccupancyMaxActiveBlocksPerMultiprocessor, uintptr(unsafe.Pointer(&n)), k.fn, uintptr(groupSize), uintptr(dynGroupMem))); r != cudaSuccess {
			return hsa.Errorf(r.status(), op, "kernel %s block %d shared %d: cuOccupancyMaxActiveBlocksPerMultiprocessor: %v", k.name, groupSize, dynGroupMem, r)
		}
		return nil
	})
	return int(n), err
}

// MaxPotentialGroupSize implements spi.Occupancy with
// cuOccupancyMaxPotentialBlockSize (a fixed dynamic shared size, so no
// per-block-size callback).
func (d *device) MaxPotentialGroupSize(ks *hsa.KernelSymbol, dynGroupMem, limit int) (minGrid, groupSize int, err error) {
	const op = "occupancy"
	k, err := d.occupancyKernel(op, ks)
	if err != nil {
		return 0, 0, err
	}
	var grid, block int32
	err = d.with(func() error {
		if r := res(purego.SyscallN(d.api.cuOccupancyMaxPotentialBlockSize, uintptr(unsafe.Pointer(&grid)), uintptr(unsafe.Pointer(&block)), k.fn, 0, uintptr(dynGroupMem), uintptr(limit))); r != cudaSuccess {
			return hsa.Errorf(r.status(), op, "kernel %s shared %d limit %d: cuOccupancyMaxPotentialBlockSize: %v", k.name, dynGroupMem, limit, r)
		}
		return nil
	})
	return int(grid), int(block), err
}

func (d *device) occupancyKernel(op string, ks *hsa.KernelSymbol) (*kernel, error) {
	if d.api.cuOccupancyMaxActiveBlocksPerMultiprocessor == 0 || d.api.cuOccupancyMaxPotentialBlockSize == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks the occupancy calculator")
	}
	k := lookupKernel(ks.Object)
	if k == nil || k.dead.Load() {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s is not loaded on %s", ks.Name, d)
	}
	return k, nil
}

// StreamPriorityRange implements spi.StreamPriorities with
// cuCtxGetStreamPriorityRange in the device's primary context.
func (d *device) StreamPriorityRange() (least, greatest int, err error) {
	if d.api.cuCtxGetStreamPriorityRange == 0 {
		return 0, 0, nil // a driver without priorities has the one
	}
	var lo, hi int32
	err = d.with(func() error {
		// The pointers go straight to the call, which keeps them valid.
		if r := res(purego.SyscallN(d.api.cuCtxGetStreamPriorityRange, uintptr(unsafe.Pointer(&lo)), uintptr(unsafe.Pointer(&hi)))); r != cudaSuccess {
			return cuErr("stream priority range", "cuCtxGetStreamPriorityRange", r)
		}
		return nil
	})
	return int(lo), int(hi), err
}
