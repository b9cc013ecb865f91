package rocm

import (
	"unsafe"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// managedPool is shared virtual memory, as HIP's hipMallocManaged makes it
// on ROCm with HMM: anonymous host pages that ROCR's SVM lets every GPU
// use (hsa_amd_svm_attributes_set) and migrates to where they are touched.
type managedPool struct {
	a    *agent
	info hsa.PoolInfo
}

// ManagedPool implements spi.ManagedMemory where ROCR reports SVM.
func (a *agent) ManagedPool() (spi.PoolDriver, error) {
	var ok bool
	if s := a.rt.api.SystemGetInfo(sysSVMSupported, unsafe.Pointer(&ok)); s != hsaSuccess || !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "malloc managed", "ROCR reports no shared virtual memory (HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED; a kernel without HMM?)")
	}
	info := hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagFineGrained, Granule: 4096, Alignment: 4096, AllocAllowed: true}
	if a.host != nil {
		info.Size = a.host.info.Size
	}
	return &managedPool{a: a, info: info}, nil
}

func (p *managedPool) Info() hsa.PoolInfo { return p.info }

// Allocate maps the pages and makes them SVM: coarse-grained (coherent at
// dispatch boundaries, as managed memory is), and accessible to every GPU
// where ROCR does not make them so by default.
func (p *managedPool) Allocate(size uint64) (uintptr, error) {
	rt := p.a.rt
	if !rt.alive.Load() {
		return 0, hsa.Errorf(hsa.StatusErrorNotInitialized, "malloc managed", "the rocm driver is closed")
	}
	ptr, err := spi.MapAnonymous(uintptr(size))
	if err != nil {
		return 0, err
	}
	attrs := []svmAttribute{{svmAttribGlobalFlag, svmGlobalFlagCoarseGrained}}
	var byDefault bool
	if rt.api.SystemGetInfo(sysSVMAccessDefault, unsafe.Pointer(&byDefault)) != hsaSuccess || !byDefault {
		for _, g := range rt.agents {
			attrs = append(attrs, svmAttribute{svmAttribAgentAccessible, uint64(g.h)})
		}
	}
	if s := rt.api.SVMAttributesSet(ptr, size, attrs); s != hsaSuccess {
		_ = spi.Unmap(ptr, uintptr(size))
		return 0, rt.fail(s, "malloc managed", "hsa_amd_svm_attributes_set on %d bytes at %#x", size, ptr)
	}
	return ptr, nil
}

func (p *managedPool) Free(ptr uintptr, size uint64) error { return spi.Unmap(ptr, uintptr(size)) }

// handle is agent's ROCR handle, the CPU agent's for the host (nil).
func (a *agent) handle(op string, to spi.AgentDriver) (agentH, error) {
	if to == nil {
		return a.cpu, nil
	}
	g, ok := to.(*agent)
	if !ok || g.rt != a.rt {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidAgent, op, "%s is not a ROCm agent of this runtime", to.Info().Name)
	}
	return g.h, nil
}

// Prefetch implements spi.ManagedHints with hsa_amd_svm_prefetch_async,
// waited for on the host: ROCm queues run it as host work in stream order.
func (a *agent) Prefetch(addr, size uint64, to spi.AgentDriver, _ uintptr) error {
	const op = "prefetch"
	h, err := a.handle(op, to)
	if err != nil {
		return err
	}
	api := a.rt.api
	done, s := api.SignalCreate(1)
	if s != hsaSuccess {
		return a.rt.fail(s, op, "hsa_signal_create")
	}
	defer api.SignalDestroy(done)
	if s := api.SVMPrefetchAsync(uintptr(addr), size, h, nil, done); s != hsaSuccess {
		return a.rt.fail(s, op, "hsa_amd_svm_prefetch_async of %d bytes at %#x", size, addr)
	}
	if v := api.SignalWait(done, uint32(hsa.CondLT), 1, waitForeverTicks, uint32(hsa.WaitBlocked)); v < 0 {
		return hsa.Errorf(hsa.StatusErrorException, op, "the migration of %d bytes at %#x failed (signal %d)", size, addr, v)
	}
	return nil
}

// Advise implements spi.ManagedHints with SVM attributes: read mostly,
// the preferred location (handle 0 for none), and access in place.
func (a *agent) Advise(addr, size uint64, advice hsa.Advice, about spi.AgentDriver) error {
	const op = "advise"
	h, err := a.handle(op, about)
	if err != nil {
		return err
	}
	var at svmAttribute
	switch advice {
	case hsa.AdviseSetReadMostly:
		at = svmAttribute{svmAttribReadMostly, 1}
	case hsa.AdviseUnsetReadMostly:
		at = svmAttribute{svmAttribReadMostly, 0}
	case hsa.AdviseSetPreferredLocation:
		at = svmAttribute{svmAttribPreferredLocation, uint64(h)}
	case hsa.AdviseUnsetPreferredLocation:
		at = svmAttribute{svmAttribPreferredLocation, 0}
	case hsa.AdviseSetAccessedBy:
		at = svmAttribute{svmAttribAccessibleInPlace, uint64(h)}
	case hsa.AdviseUnsetAccessedBy:
		at = svmAttribute{svmAttribAgentAccessible, uint64(h)}
	default:
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "unknown %s", advice)
	}
	if s := a.rt.api.SVMAttributesSet(uintptr(addr), size, []svmAttribute{at}); s != hsaSuccess {
		return a.rt.fail(s, op, "%s: hsa_amd_svm_attributes_set on %d bytes at %#x", advice, size, addr)
	}
	return nil
}
