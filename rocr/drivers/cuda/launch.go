package cuda

import (
	"fmt"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

func (e *executor) KernelName(obj uint64) string {
	if k := lookupKernel(obj); k != nil {
		return k.name
	}
	return "unknown"
}

func (e *executor) Dispatch(q spi.Queue, p *aql.KernelDispatch) error {
	e.ctx()
	k := lookupKernel(p.KernelObject)
	if k == nil {
		return e.fail(hsa.Errorf(hsa.StatusErrorInvalidCodeSymbol, "dispatch", "kernel object %#x is not a loaded cuda kernel", p.KernelObject))
	}
	block := [3]uint32{uint32(p.WorkgroupSizeX), uint32(p.WorkgroupSizeY), uint32(p.WorkgroupSizeZ)}
	grid, dyn, err := k.shape([3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}, block, p.GroupSegmentSize)
	if err != nil {
		return e.fail(err)
	}
	if dyn > k.dynLimit.Load() {
		if err := e.allowDynamic(k, dyn); err != nil {
			return e.fail(err)
		}
	}
	var extra uintptr
	if k.argEnd > 0 {
		if p.KernargAddress == 0 {
			return e.fail(hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: null kernarg address", k.name))
		}
		if err := host.CheckBufferArgs(e.queue, k.name, uintptr(p.KernargAddress), k.buffers); err != nil {
			return e.fail(err)
		}
		*(*uintptr)(hostmem.At(e.scratch + offExtra + 8)) = uintptr(p.KernargAddress)
		*(*uintptr)(hostmem.At(e.scratch + offExtraSize)) = uintptr(k.argEnd)
		extra = e.scratch + offExtra
	}
	if err := e.stampAround(p.CompletionSignal, false); err != nil {
		return e.fail(err)
	}
	if coop, cluster := p.Reserved2&aql.DispatchCooperative != 0, aql.ClusterDims(p.Reserved2); coop || cluster != ([3]uint32{}) {
		if err := e.launchEx(k, grid, block, dyn, extra, coop, cluster); err != nil {
			return e.fail(err)
		}
	} else if r := e.sa.call(e.api.cuLaunchKernel, k.fn, uintptr(grid[0]), uintptr(grid[1]), uintptr(grid[2]), uintptr(block[0]), uintptr(block[1]), uintptr(block[2]), uintptr(dyn), e.stream, 0, extra); r != cudaSuccess {
		return e.fail(cuErr("dispatch", fmt.Sprintf("kernel %s grid %v block %v shared %d: cuLaunchKernel", k.name, grid, block, dyn), r))
	}
	if err := e.stampAround(p.CompletionSignal, true); err != nil {
		return e.fail(err)
	}
	_, err = e.complete(p.CompletionSignal, false)
	return err
}

// allowDynamic raises a kernel's dynamic shared memory limit (needed above
// 48 KiB).
func (e *executor) allowDynamic(k *kernel, n uint32) error {
	return e.dev.allowDynamic(k, n, func(f uintptr, args ...uintptr) cuResult { return e.sa.call(f, args...) })
}

// allowDynamic raises k's dynamic shared memory limit to n bytes through
// call, with the device's context current.
func (d *device) allowDynamic(k *kernel, n uint32, call func(f uintptr, args ...uintptr) cuResult) error {
	if d.api.cuFuncSetAttribute == 0 || int(n)+int(k.static) > d.info.MaxDynamicGroup {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: %d bytes of dynamic shared memory exceed the device's %d", k.name, n, d.info.MaxDynamicGroup-int(k.static))
	}
	if r := call(d.api.cuFuncSetAttribute, k.fn, funcAttrMaxDynamicSharedMem, uintptr(n)); r != cudaSuccess {
		return hsa.Errorf(r.status(), "dispatch", "kernel %s: cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d): %v", k.name, n, r)
	}
	k.dynLimit.Store(n)
	return nil
}

// shape converts a packet's work-item grid, block and group segment into
// a CUDA launch's grid of blocks and dynamic shared memory, checked
// against the kernel's limits.
func (k *kernel) shape(items, block [3]uint32, group uint32) (grid [3]uint32, dyn uint32, err error) {
	for i := range block {
		if block[i] == 0 || items[i] == 0 || items[i]%block[i] != 0 {
			return grid, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: grid %v work-items is not a whole number of %v blocks (CUDA launches whole blocks)", k.name, items, block)
		}
		grid[i] = items[i] / block[i]
	}
	if t := block[0] * block[1] * block[2]; t > k.maxThreads {
		return grid, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: block of %d threads exceeds its limit of %d", k.name, t, k.maxThreads)
	}
	if group < k.static {
		return grid, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "dispatch", "kernel %s: group segment of %d bytes is smaller than its static %d bytes", k.name, group, k.static)
	}
	return grid, group - k.static, nil
}
