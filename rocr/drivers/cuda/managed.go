package cuda

import (
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

const (
	memAttachGlobal = 1 // CU_MEM_ATTACH_GLOBAL: any stream may use it
	deviceCPU       = ^uintptr(0)
	locationDevice  = 1 // CU_MEM_LOCATION_TYPE_DEVICE
	locationHost    = 2 // CU_MEM_LOCATION_TYPE_HOST
)

// managedPool is cuMemAllocManaged memory: one address on the host and
// every device, migrated by the driver where it is touched.
type managedPool struct{ pool }

// ManagedPool implements spi.ManagedMemory.
func (d *device) ManagedPool() (spi.PoolDriver, error) {
	if d.api.cuMemAllocManaged == 0 || d.api.cuMemGetInfo == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "malloc managed", "libcuda lacks cuMemAllocManaged or cuMemGetInfo_v2")
	}
	info := d.pools[0].Info()
	info.Flags = hsa.FlagFineGrained
	info.Granule, info.Alignment = 4096, 4096
	return &managedPool{pool{dev: d, info: info}}, nil
}

// Allocate refuses more than the device has free before it asks: a managed
// allocation larger than device memory oversubscribes it, and a kernel
// that then touches all of it can hang the GPU.
func (p *managedPool) Allocate(size uint64) (uintptr, error) {
	var ptr uintptr
	err := p.dev.with(func() error {
		var free, total uint64
		if r := res(purego.SyscallN(p.dev.api.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))); r != cudaSuccess {
			return cuErr("malloc managed", "cuMemGetInfo", r)
		}
		if size > free {
			return hsa.Errorf(hsa.StatusErrorOutOfResources, "malloc managed", "%d bytes exceed the %d bytes free on %s (of %d): more could hang the GPU", size, free, p.dev, total)
		}
		if r := res(purego.SyscallN(p.dev.api.cuMemAllocManaged, uintptr(unsafe.Pointer(&ptr)), uintptr(size), memAttachGlobal)); r != cudaSuccess {
			return cuErr("malloc managed", "cuMemAllocManaged", r)
		}
		return nil
	})
	return ptr, err
}

func (p *managedPool) Free(ptr uintptr, _ uint64) error {
	return p.dev.do("free", "cuMemFree", p.dev.api.cuMemFree, ptr)
}

// location is agent as a prefetch or advice target: a CUmemLocation
// passed by value (two ints, one register: type low, id high) for the _v2
// entry points, a CUdevice (CU_DEVICE_CPU for the host) for the old ones.
func (d *device) location(op string, agent spi.AgentDriver, v2 bool) (uintptr, error) {
	if agent == nil {
		if v2 {
			return locationHost, nil
		}
		return deviceCPU, nil
	}
	to, ok := agent.(*device)
	if !ok {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s is not a cuda device", agent.Info().Name)
	}
	if v2 {
		return locationDevice | uintptr(uint32(to.ordinal))<<32, nil
	}
	return to.ordinal, nil
}

// Prefetch implements spi.ManagedHints with cuMemPrefetchAsync (the
// CUmemLocation form where libcuda has it; CUDA 13 has only that one).
func (d *device) Prefetch(addr, size uint64, to spi.AgentDriver, stream uintptr) error {
	const op = "prefetch"
	if d.api.cuMemPrefetchAsync == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks cuMemPrefetchAsync")
	}
	loc, err := d.location(op, to, d.api.prefetchV2)
	if err != nil {
		return err
	}
	return d.with(func() error {
		var r cuResult
		if d.api.prefetchV2 {
			r = res(purego.SyscallN(d.api.cuMemPrefetchAsync, uintptr(addr), uintptr(size), loc, 0, stream))
		} else {
			r = res(purego.SyscallN(d.api.cuMemPrefetchAsync, uintptr(addr), uintptr(size), loc, stream))
		}
		if r != cudaSuccess {
			return cuErr(op, "cuMemPrefetchAsync", r)
		}
		return nil
	})
}

// Advise implements spi.ManagedHints with cuMemAdvise (the CUmemLocation
// form where libcuda has it); the advice values are CUDA's.
func (d *device) Advise(addr, size uint64, advice hsa.Advice, agent spi.AgentDriver) error {
	const op = "advise"
	if d.api.cuMemAdvise == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks cuMemAdvise")
	}
	loc, err := d.location(op, agent, d.api.adviseV2)
	if err != nil {
		return err
	}
	return d.with(func() error {
		if r := res(purego.SyscallN(d.api.cuMemAdvise, uintptr(addr), uintptr(size), uintptr(advice), loc)); r != cudaSuccess {
			return cuErr(op, "cuMemAdvise", r)
		}
		return nil
	})
}

// MemInfo implements spi.MemoryInfo (cuMemGetInfo): free and total device
// memory, every process's allocations counted.
func (d *device) MemInfo() (free, total uint64, err error) {
	if d.api.cuMemGetInfo == 0 {
		return 0, 0, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "mem get info", "libcuda lacks cuMemGetInfo_v2")
	}
	err = d.with(func() error {
		if r := res(purego.SyscallN(d.api.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total)))); r != cudaSuccess {
			return cuErr("mem get info", "cuMemGetInfo", r)
		}
		return nil
	})
	return free, total, err
}
