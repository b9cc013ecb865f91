package rocm

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// pool is a ROCR memory pool (hsa_amd_memory_pool_t).
type pool struct {
	rt    *runtime
	h     poolH
	info  hsa.PoolInfo
	allow []agentH // agents to grant access to each allocation
}

// read fills info from hsa_amd_memory_pool_get_info.
func (p *pool) read() error {
	api := p.rt.api
	var seg, flags uint32
	var size, granule, align uint64 // size_t
	var allowed, all bool
	if s := api.PoolGetInfo(p.h, poolSegment, unsafe.Pointer(&seg)); s != hsaSuccess {
		return p.rt.fail(s, "pools", "pool %#x segment", uint64(p.h))
	}
	if hsa.Segment(seg) == hsa.SegmentGlobal {
		api.PoolGetInfo(p.h, poolGlobalFlags, unsafe.Pointer(&flags))
	}
	api.PoolGetInfo(p.h, poolSize, unsafe.Pointer(&size))
	api.PoolGetInfo(p.h, poolAllocAllowed, unsafe.Pointer(&allowed))
	if allowed {
		api.PoolGetInfo(p.h, poolAllocGranule, unsafe.Pointer(&granule))
		api.PoolGetInfo(p.h, poolAllocAlignment, unsafe.Pointer(&align))
	}
	api.PoolGetInfo(p.h, poolAccessibleByAll, unsafe.Pointer(&all))
	p.info = hsa.PoolInfo{
		Segment:         hsa.Segment(seg),
		Flags:           hsa.GlobalFlag(flags),
		Size:            size,
		Granule:         granule,
		Alignment:       align,
		AllocAllowed:    allowed,
		AccessibleByAll: all,
	}
	return nil
}

func (p *pool) Info() hsa.PoolInfo { return p.info }

// Allocate is hsa_amd_memory_pool_allocate, followed for system memory by
// hsa_amd_agents_allow_access for the GPUs that need it.
func (p *pool) Allocate(size uint64) (uintptr, error) {
	if !p.rt.alive.Load() {
		return 0, hsa.Errorf(hsa.StatusErrorNotInitialized, "allocate", "the rocm driver is closed")
	}
	ptr, s := p.rt.api.PoolAllocate(p.h, size)
	if s != hsaSuccess {
		return 0, p.rt.fail(s, "allocate", "%d bytes from ROCR pool %#x", size, uint64(p.h))
	}
	if len(p.allow) > 0 {
		if s := p.rt.api.AllowAccess(p.allow, ptr); s != hsaSuccess {
			p.rt.api.PoolFree(ptr)
			return 0, p.rt.fail(s, "allocate", "allow GPU access to %d bytes at %#x", size, ptr)
		}
	}
	return ptr, nil
}

// Free is hsa_amd_memory_pool_free.
func (p *pool) Free(ptr uintptr, _ uint64) error {
	if !p.rt.alive.Load() {
		return nil // hsa_shut_down released it
	}
	if s := p.rt.api.PoolFree(ptr); s != hsaSuccess {
		return p.rt.fail(s, "free", "%#x", ptr)
	}
	return nil
}
