package rocr

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/btree"

	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Pool is an agent's memory pool.
type Pool struct {
	drv   spi.PoolDriver
	info  hsa.PoolInfo
	agent *Agent
	limit uint64 // GPU_MAX_HEAP_SIZE cap, 0 for none
	used  atomic.Uint64
	ipc   uint8 // ipcNone, ipcExport or ipcOpened (ipc.go)
}

// Info returns the pool's attributes.
func (p *Pool) Info() hsa.PoolInfo { return p.info }

// Agent is the pool's agent.
func (p *Pool) Agent() *Agent { return p.agent }

// Used is the number of bytes allocated from the pool.
func (p *Pool) Used() uint64 { return p.used.Load() }

// Limit is the allocation cap (GPU_MAX_HEAP_SIZE); 0 means the pool size.
func (p *Pool) Limit() uint64 {
	if p.limit == 0 {
		return p.info.Size
	}
	return p.limit
}

func (p *Pool) String() string {
	return fmt.Sprintf("%s pool %s of %s", p.info.Segment, p.info.Flags, p.agent)
}

// heapLimit reads GPU_MAX_HEAP_SIZE (a percentage) for coarse-grained pools.
func heapLimit(info hsa.PoolInfo) (uint64, error) {
	v := os.Getenv("GPU_MAX_HEAP_SIZE")
	if v == "" || info.Flags&hsa.FlagCoarseGrained == 0 || info.Segment != hsa.SegmentGlobal {
		return 0, nil
	}
	pct, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	// Written so that NaN fails it too.
	if err != nil || !(pct > 0 && pct <= 100) {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "init", "GPU_MAX_HEAP_SIZE=%q: want a percentage in (0, 100]", v)
	}
	limit := uint64(float64(info.Size) * pct / 100)
	// A limit of 0 would read as none; below one granule nothing fits.
	if limit < max(info.Granule, 1) {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "init", "GPU_MAX_HEAP_SIZE=%q: %v%% of %d bytes is less than one allocation granule of %d bytes", v, pct, info.Size, info.Granule)
	}
	return limit, nil
}

// Allocation is one block of pool memory.
type Allocation struct {
	Base uintptr
	Size uintptr // requested size
	pool *Pool
	cap  uint64 // rounded size
	// owner is the agent that may use coarse-grained memory.
	owner  atomic.Pointer[Agent]
	mu     sync.Mutex
	access []*Agent // agents allowed by AllowAccess
	freed  atomic.Bool
	label  atomic.Pointer[fmt.Stringer] // SetLabel, SetLabeler
	// global: a variable of loaded code (Global), which no pool made.
	global bool
	// opens: the openings of memory another process shared (OpenIPC),
	// under openedIPC.mu.
	opens int
}

// SetLabel names the allocation in errors ("buffer 0x7f.. of 1024
// float32"). It may race with errors that name it.
func (a *Allocation) SetLabel(s string) { a.SetLabeler(stringLabel(s)) }

// SetLabeler is SetLabel whose text is made only when an error needs it:
// an allocation's label costs nothing until then.
func (a *Allocation) SetLabeler(l fmt.Stringer) { a.label.Store(&l) }

type stringLabel string

func (s stringLabel) String() string { return string(s) }

// Pool is the allocation's pool.
func (a *Allocation) Pool() *Pool { return a.pool }

// Owner is the agent that owns the allocation.
func (a *Allocation) Owner() *Agent { return a.owner.Load() }

// Freed reports whether the allocation was freed.
func (a *Allocation) Freed() bool { return a.freed.Load() }

func (a *Allocation) String() string {
	if l := a.label.Load(); l != nil {
		return (*l).String()
	}
	return fmt.Sprintf("allocation %#x (%d bytes)", a.Base, a.Size)
}

// Allocate allocates size bytes from the pool (hsa_amd_memory_pool_allocate).
// The allocation is owned by the pool's agent.
func (p *Pool) Allocate(size uint64) (*Allocation, error) {
	if err := p.agent.check("allocate"); err != nil {
		return nil, err
	}
	// A ShutDown or Reset that starts meanwhile waits for the allocation
	// to be listed, so that it frees it (and its driver still has the
	// heap).
	if err := p.agent.rt.enter(p.agent, "allocate"); err != nil {
		return nil, err
	}
	defer p.agent.creating.Done()
	return p.allocate(size)
}

// allocate is Allocate for a caller already counted in p.agent.creating
// (CreateQueue): counting it again could wait for a Reset that waits for
// the caller.
func (p *Pool) allocate(size uint64) (*Allocation, error) {
	if size == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "allocate", "size 0 from %s", p)
	}
	if !p.info.AllocAllowed {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidAllocation, "allocate", "%s does not allow runtime allocation", p)
	}
	g := p.info.Granule
	if g == 0 {
		g = 1
	}
	if size > p.Limit() {
		return nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "allocate", "%d bytes from %s: over the pool's limit of %d bytes", size, p, p.Limit())
	}
	rounded := (size + g - 1) / g * g
	p.agent.rt.releaseDeferred(false)
	if used := p.used.Add(rounded); used > p.Limit() {
		p.used.Add(-rounded)
		return nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "allocate", "%d bytes from %s: %d of %d bytes in use", size, p, used-rounded, p.Limit())
	}
	ptr, err := p.drv.Allocate(rounded)
	if err != nil {
		p.used.Add(-rounded)
		return nil, err
	}
	a := &Allocation{Base: ptr, Size: uintptr(size), pool: p, cap: rounded}
	a.owner.Store(p.agent)
	allocs.insert(a)
	return a, nil
}

// Free returns the allocation to its pool. A second Free is an error.
func (a *Allocation) Free() error {
	if a == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "nil allocation")
	}
	if a.global {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "%s belongs to its code: it lasts until the code is destroyed", a)
	}
	if a.freed.Load() {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "%s was already freed", a)
	}
	if a.pool != nil && a.pool.ipc == ipcOpened && !a.closeOpening() {
		return nil // opened again meanwhile: the mapping stays for the others
	}
	if !a.freed.CompareAndSwap(false, true) {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "free", "%s was already freed", a)
	}
	return a.release()
}

// freeIfLive is Free for the runtime's own release of everything left
// (ShutDown): an allocation its program freed meanwhile is no error.
func (a *Allocation) freeIfLive() error {
	if !a.freed.CompareAndSwap(false, true) {
		return nil
	}
	return a.release()
}

// release returns the memory of an allocation just marked freed.
func (a *Allocation) release() error {
	allocs.remove(a)
	err := a.pool.drv.Free(a.Base, a.cap)
	a.pool.used.Add(-a.cap)
	return err
}

// Hold keeps a's memory from being released by a ShutDown or a Reset of
// its agent until Unhold, so that the host can read what a device wrote
// there while another goroutine shuts the runtime down. It never waits:
// it reports false, holding nothing, when a is freed or a ShutDown or
// Reset is under way. A holder must not wait for anything meanwhile.
func (a *Allocation) Hold() bool {
	ag := a.pool.agent
	ag.rt.mu.Lock()
	defer ag.rt.mu.Unlock()
	if ag.rt.closing || ag.resetting != nil || a.freed.Load() {
		return false
	}
	ag.creating.Add(1) // what ShutDown and Reset wait for before freeing
	return true
}

// Unhold ends a Hold that reported true.
func (a *Allocation) Unhold() { a.pool.agent.creating.Done() }

// AllowAccess lets agents access a fine-grained allocation
// (hsa_amd_agents_allow_access).
func (a *Allocation) AllowAccess(agents ...*Agent) error {
	if a.freed.Load() {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "allow access", "%s was freed", a)
	}
	if a.pool.info.Flags&hsa.FlagCoarseGrained != 0 && !a.pool.info.Host {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "allow access", "%s is coarse-grained device memory: transfer it instead", a)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ag := range agents {
		if ag == nil {
			return hsa.Errorf(hsa.StatusErrorInvalidAgent, "allow access", "nil agent")
		}
		a.access = append(a.access, ag)
	}
	return nil
}

// Transfer makes agent the owner of a coarse-grained allocation
// (hsa_memory_assign_agent). The caller has ordered all earlier work on the
// memory before the transfer.
func (a *Allocation) Transfer(agent *Agent) error {
	if err := agent.check("transfer"); err != nil {
		return err
	}
	if a.freed.Load() {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "transfer", "%s was freed", a)
	}
	if a.global && agent != a.owner.Load() {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "transfer", "%s belongs to the code loaded on %s", a, a.owner.Load())
	}
	a.owner.Store(agent)
	return nil
}

// CheckAccess reports whether agent may use the allocation in a dispatch:
// it owns it, it has peer access to the owner (EnablePeer), the memory is
// fine-grained and visible to it, or it was allowed access. The error names
// the allocation, the owner and the agent.
func (a *Allocation) CheckAccess(agent *Agent) error {
	if a.freed.Load() {
		return hsa.Errorf(hsa.StatusErrorInvalidAllocation, "access", "%s was freed", a)
	}
	owner := a.owner.Load()
	if owner == agent {
		return nil
	}
	info := a.pool.info
	if info.Managed || info.Flags&hsa.FlagFineGrained != 0 && (info.AccessibleByAll || info.Host) || peerEnabled(agent, owner) {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, x := range a.access {
		if x == agent {
			return nil
		}
	}
	return hsa.Newf(hsa.ErrNotOwner, hsa.StatusErrorInvalidAgent, "access", "%s is owned by %s, not by %s: transfer it, copy it, or enable peer access first", a, owner, agent)
}

// allocRegistry finds the allocation holding an address. A B-tree keyed by
// base address keeps insert, remove and lookup O(log n), so allocation cost
// does not grow with the number of live allocations.
type allocRegistry struct {
	mu   sync.RWMutex
	tree *btree.BTreeG[allocEntry]
	hint btree.PathHint // last write's path: an alloc+free pair walks it twice
}

// allocEntry is a tree item: the key inline, so a lookup's pivot needs no
// allocation.
type allocEntry struct {
	base uintptr
	al   *Allocation
}

var allocs = allocRegistry{tree: btree.NewBTreeGOptions(func(a, b allocEntry) bool { return a.base < b.base }, btree.Options{NoLocks: true})}

// The project's tests count live allocations to prove nothing leaked.
func init() { rocrhook.CountAllocationsWith(allocs.len) }

func (r *allocRegistry) insert(a *Allocation) {
	r.mu.Lock()
	r.tree.SetHint(allocEntry{a.Base, a}, &r.hint)
	r.mu.Unlock()
}

func (r *allocRegistry) remove(a *Allocation) {
	r.mu.Lock()
	if e, ok := r.tree.DeleteHint(allocEntry{base: a.Base}, &r.hint); ok && e.al != a {
		r.tree.SetHint(e, &r.hint) // not a's entry: put it back
	}
	r.mu.Unlock()
}

// find returns the allocation containing addr, or nil.
func (r *allocRegistry) find(addr uintptr) *Allocation {
	var a *Allocation
	r.mu.RLock()
	r.tree.Descend(allocEntry{base: addr}, func(e allocEntry) bool {
		a = e.al
		return false
	})
	r.mu.RUnlock()
	if a != nil && (addr < a.Base+uintptr(a.cap) || (a.cap == 0 && addr == a.Base)) {
		return a
	}
	return nil
}

func (r *allocRegistry) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tree.Len()
}

// all returns every live allocation, for ShutDown.
func (r *allocRegistry) all() []*Allocation {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Allocation, 0, r.tree.Len())
	r.tree.Scan(func(e allocEntry) bool {
		out = append(out, e.al)
		return true
	})
	return out
}

// checkRange applies the rules every agent applies to memory a packet
// names: [addr, addr+size) lies in one live allocation, and agent may
// access it (CheckAccess). It returns the allocation; size 0 checks the
// address alone. The errors say which rule was broken and where.
func checkRange(agent *Agent, addr, size uintptr) (*Allocation, error) {
	if addr+size < addr {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidArgument, "access", "range at %#x of %d bytes overflows", addr, size)
	}
	al := FindAllocation(addr)
	if al == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidAllocation, "access", "address %#x is not in any allocation", addr)
	}
	if err := al.CheckAccess(agent); err != nil {
		return al, err
	}
	if size > 0 && addr+size > al.Base+al.Size {
		return al, hsa.Errorf(hsa.StatusErrorInvalidArgument, "access", "[%#x, %#x) runs past the end of %s (%d bytes at %#x)", addr, addr+size, al, al.Size, al.Base)
	}
	return al, nil
}

// checkPointer is checkRange for a kernel's pointer argument: an address
// outside every allocation is an invalid argument of the dispatch; an
// access the agent may not make keeps its own status (hsa.ErrNotOwner).
func checkPointer(agent *Agent, addr uintptr) (hsa.Status, error) {
	_, err := checkRange(agent, addr, 0)
	if err == nil {
		return hsa.StatusSuccess, nil
	}
	if st := hsa.StatusOf(err); st != hsa.StatusErrorInvalidAllocation {
		return st, err
	}
	return hsa.StatusErrorInvalidArgument, err
}

// FindAllocation returns the live allocation containing addr, or nil.
func FindAllocation(addr uintptr) *Allocation { return allocs.find(addr) }
