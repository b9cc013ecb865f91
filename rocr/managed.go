package rocr

import (
	"sync"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// managedPools caches each agent's managed pool.
var managedPools struct {
	mu sync.Mutex
	m  map[*Agent]*Pool
}

// ManagedPool returns the pool managed memory is allocated from on a
// (see ManagedMemory). Its allocations have no owner: PoolInfo.Managed.
func (a *Agent) ManagedPool() (*Pool, error) {
	const op = "malloc managed"
	if err := a.check(op); err != nil {
		return nil, err
	}
	mm, ok := a.drv.(spi.ManagedMemory)
	if !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s has no managed memory", a)
	}
	managedPools.mu.Lock()
	defer managedPools.mu.Unlock()
	if p := managedPools.m[a]; p != nil {
		return p, nil
	}
	pd, err := mm.ManagedPool()
	if err != nil {
		return nil, err
	}
	info := pd.Info()
	info.Managed, info.AccessibleByAll, info.Host = true, true, true
	p := &Pool{drv: pd, info: info, agent: a}
	if managedPools.m == nil {
		managedPools.m = map[*Agent]*Pool{}
	}
	managedPools.m[a] = p
	return p, nil
}

// forgetManaged drops the managed pools of a runtime's agents at ShutDown.
func forgetManaged(rt *rtState) {
	managedPools.mu.Lock()
	defer managedPools.mu.Unlock()
	for a := range managedPools.m {
		if a.rt == rt {
			delete(managedPools.m, a)
		}
	}
}

// Prefetch migrates managed memory [addr, addr+size) toward agent to (nil:
// the host) in the order of stream, a native stream of a (0: at once).
// Drivers without ManagedHints need no migration.
func (a *Agent) Prefetch(addr, size uint64, to *Agent, stream uintptr) error {
	const op = "prefetch"
	if err := a.checkManaged(op, addr, size); err != nil {
		return err
	}
	if h, ok := a.drv.(spi.ManagedHints); ok {
		return h.Prefetch(addr, size, to.driverOrHost(), stream)
	}
	return nil
}

// Advise records a usage hint for managed memory [addr, addr+size) about
// agent (nil: the host). Drivers without ManagedHints ignore hints.
func (a *Agent) Advise(addr, size uint64, advice hsa.Advice, agent *Agent) error {
	const op = "advise"
	if advice < hsa.AdviseSetReadMostly || advice > hsa.AdviseUnsetAccessedBy {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "unknown %s", advice)
	}
	if err := a.checkManaged(op, addr, size); err != nil {
		return err
	}
	if h, ok := a.drv.(spi.ManagedHints); ok {
		return h.Advise(addr, size, advice, agent.driverOrHost())
	}
	return nil
}

// checkManaged checks that [addr, addr+size) lies in one live managed
// allocation.
func (a *Agent) checkManaged(op string, addr, size uint64) error {
	if err := a.check(op); err != nil {
		return err
	}
	al := FindAllocation(uintptr(addr))
	if al == nil || al.Freed() || !al.pool.info.Managed {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%#x is not managed memory", addr)
	}
	if size == 0 || addr+size < addr || uintptr(addr+size) > al.Base+al.Size {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "[%#x, %#x) is not within %s", addr, addr+size, al)
	}
	return nil
}

// driverOrHost is the agent's driver for a driver's hint, nil for the host
// (a nil agent).
func (a *Agent) driverOrHost() spi.AgentDriver {
	if a == nil {
		return nil
	}
	return a.drv
}
