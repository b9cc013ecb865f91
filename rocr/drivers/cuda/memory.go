package cuda

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// pool is what the device's pools share: the device and what the pool
// reports.
type pool struct {
	dev  *device
	info hsa.PoolInfo
}

func (p *pool) Info() hsa.PoolInfo { return p.info }

// devicePool is the device's memory: coarse-grained, owned by one agent.
type devicePool struct{ pool }

func (p *devicePool) Allocate(size uint64) (uintptr, error) {
	var ptr uintptr
	err := p.dev.with(func() error {
		if r := res(purego.SyscallN(p.dev.api.cuMemAlloc, uintptr(unsafe.Pointer(&ptr)), uintptr(size))); r != cudaSuccess {
			return cuErr("allocate", "cuMemAlloc", r)
		}
		return nil
	})
	return ptr, err
}

func (p *devicePool) Free(ptr uintptr, _ uint64) error {
	return p.dev.do("free", "cuMemFree", p.dev.api.cuMemFree, ptr)
}

// hostPool is page-locked host memory mapped into every device's address
// space (the same address on both sides with unified addressing).
type hostPool struct{ pool }

func (p *hostPool) Allocate(size uint64) (uintptr, error) {
	var ptr uintptr
	err := p.dev.with(func() error {
		if r := res(purego.SyscallN(p.dev.api.cuMemHostAlloc, uintptr(unsafe.Pointer(&ptr)), uintptr(size), memHostAllocPortable|memHostAllocDeviceMap)); r != cudaSuccess {
			return cuErr("allocate", "cuMemHostAlloc", r)
		}
		return nil
	})
	return ptr, err
}

func (p *hostPool) Free(ptr uintptr, _ uint64) error {
	return p.dev.do("free", "cuMemFreeHost", p.dev.api.cuMemFreeHost, ptr)
}

// kernargPool is plain mapped host memory: cuLaunchKernel copies the
// kernarg image out of it (CU_LAUNCH_PARAM_BUFFER_POINTER) at launch.
type kernargPool struct{ info hsa.PoolInfo }

func (p *kernargPool) Info() hsa.PoolInfo { return p.info }

func (p *kernargPool) Allocate(size uint64) (uintptr, error) {
	return spi.MapAnonymous(uintptr(size))
}

func (p *kernargPool) Free(ptr uintptr, size uint64) error { return spi.Unmap(ptr, uintptr(size)) }

// groupPool describes shared memory per block; it cannot be allocated.
type groupPool struct{ info hsa.PoolInfo }

func (p *groupPool) Info() hsa.PoolInfo { return p.info }

func (p *groupPool) Allocate(uint64) (uintptr, error) {
	return 0, hsa.Errorf(hsa.StatusErrorInvalidAllocation, "allocate", "the group segment is not allocatable")
}

func (p *groupPool) Free(uintptr, uint64) error {
	return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "the group segment is not allocatable")
}
