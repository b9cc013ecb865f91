package spi

import "github.com/hipgo/hipgo/rocr/hsa"

// ManagedMemory is implemented by agent drivers that allocate managed
// memory (hipMallocManaged): memory the host and every agent address at
// the same address, which the driver migrates or maps where it is used.
// It has no owning agent, so CheckAccess lets every agent use it, and the
// host may touch it once the work that uses it is complete. Agents whose
// drivers lack it answer ErrNotSupported.
type ManagedMemory interface {
	// ManagedPool is the pool managed memory is allocated from; its
	// allocations must refuse what the agent cannot back (on cuda, more
	// than the device's free memory, which can hang the GPU).
	ManagedPool() (PoolDriver, error)
}

// ManagedHints is implemented by drivers that take placement hints for
// managed memory. Without it rocr treats hints as satisfied: memory the
// host and the agent share needs no migration (the cpu agent).
type ManagedHints interface {
	// Prefetch migrates [addr, addr+size) to agent's memory (to nil: the
	// host's) in the order of the native stream (0: at once).
	Prefetch(addr, size uint64, to AgentDriver, stream uintptr) error
	// Advise records a usage hint for [addr, addr+size) about agent (nil:
	// the host).
	Advise(addr, size uint64, advice hsa.Advice, agent AgentDriver) error
}
