package rocr

import (
	"sync"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// A global is a variable of loaded code: a `__device__` or `__constant__`
// variable of a code object, or a variable a Go kernel set declares. Its
// memory belongs to the code, not to a pool: it is an Allocation that no
// pool made, listed while the code is loaded, so that packets naming it
// pass the checks every agent applies (spi.Host.CheckRange), and gone when the
// code is destroyed. Its owner is the agent that loaded the code.

// loaded is what Agent.Load returns: the driver's executable and the
// globals looked up in it, which Destroy releases.
type loaded struct {
	spi.Executable
	agent *Agent
	mu    sync.Mutex
	vars  map[string]*Allocation
	dead  bool
}

// Destroy releases the globals looked up in the code, then the code.
func (l *loaded) Destroy() error {
	l.mu.Lock()
	dead := l.dead
	l.dead = true
	vars := l.vars
	l.vars = nil
	l.mu.Unlock()
	if !dead {
		for _, al := range vars {
			releaseGlobal(al)
		}
	}
	return l.Executable.Destroy()
}

// Global finds the variable name of code loaded by Agent.Load
// (hipModuleGetGlobal): an allocation of the variable's size at its
// address, owned by the agent. It stays valid until the code is
// destroyed; it cannot be freed or transferred. A name the code does not
// define is hsa.StatusErrorInvalidSymbolName; a driver that cannot look
// variables up gives hsa.ErrNotSupported.
func Global(exe spi.Executable, name string) (*Allocation, error) {
	const op = "global"
	l, ok := exe.(*loaded)
	if !ok || l == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidExecutable, op, "code not loaded by Agent.Load")
	}
	if name == "" {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "empty variable name")
	}
	f, ok := l.Executable.(spi.GlobalFinder)
	if !ok {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "%s cannot look up variables of loaded code", l.agent)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidExecutable, op, "%q: the code was destroyed", name)
	}
	if al := l.vars[name]; al != nil {
		return al, nil
	}
	addr, size, err := f.Global(name)
	if err != nil {
		return nil, err
	}
	if addr == 0 || size == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, op, "%q has no storage (address %#x, %d bytes)", name, addr, size)
	}
	if addr+uintptr(size) < addr {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "%q: %d bytes at %#x overflow", name, size, addr)
	}
	al, err := listGlobal(l.agent, name, addr, uintptr(size))
	if err != nil {
		return nil, err
	}
	if l.vars == nil {
		l.vars = map[string]*Allocation{}
	}
	l.vars[name] = al
	return al, nil
}

// codeMemory is the PoolDriver of globals' pools: the code owns the
// memory, so there is nothing to allocate or give back.
type codeMemory struct{}

func (codeMemory) Info() hsa.PoolInfo {
	return hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagCoarseGrained}
}
func (codeMemory) Allocate(uint64) (uintptr, error) {
	return 0, hsa.Errorf(hsa.StatusErrorInvalidAllocation, "allocate", "a global's memory belongs to its code")
}
func (codeMemory) Free(uintptr, uint64) error { return nil }

// globals counts the loads that share one global: the cpu agent's Go
// kernel sets name the same Go variable in every load, which the
// allocation registry lists once.
var globals struct {
	mu   sync.Mutex
	refs map[*Allocation]int
}

// listGlobal lists [addr, addr+size) as a global of agent, or counts one
// more use of the global already listed there.
func listGlobal(agent *Agent, name string, addr, size uintptr) (*Allocation, error) {
	globals.mu.Lock()
	defer globals.mu.Unlock()
	if al := FindAllocation(addr); al != nil {
		if _, shared := globals.refs[al]; shared && al.Base == addr && al.Size == size {
			// The same variable loaded by another agent (a Go variable
			// every cpu agent's load of the set names): one storage, which
			// each agent that loaded it may use, as it may its own.
			if al.Owner() != agent {
				al.grantAccess(agent)
			}
			globals.refs[al]++
			return al, nil
		}
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "global", "%q at %#x lies in %s", name, addr, al)
	}
	if al := FindAllocation(addr + size - 1); al != nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "global", "%q (%d bytes at %#x) overlaps %s", name, size, addr, al)
	}
	p := &Pool{drv: codeMemory{}, info: codeMemory{}.Info(), agent: agent}
	al := &Allocation{Base: addr, Size: size, pool: p, cap: uint64(size), global: true}
	al.owner.Store(agent)
	al.SetLabel("global " + name)
	p.used.Add(al.cap)
	if globals.refs == nil {
		globals.refs = map[*Allocation]int{}
	}
	globals.refs[al] = 1
	allocs.insert(al)
	return al, nil
}

// grantAccess lets agent use the global al, once.
func (al *Allocation) grantAccess(agent *Agent) {
	al.mu.Lock()
	defer al.mu.Unlock()
	for _, x := range al.access {
		if x == agent {
			return
		}
	}
	al.access = append(al.access, agent)
}

// releaseGlobal drops one use of a global; the last unlists it.
func releaseGlobal(al *Allocation) {
	globals.mu.Lock()
	defer globals.mu.Unlock()
	if globals.refs[al]--; globals.refs[al] > 0 {
		return
	}
	delete(globals.refs, al)
	_ = al.freeIfLive()
}
