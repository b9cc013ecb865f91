package spi

import (
	"fmt"

	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Host is the runtime's side of the contract: what a driver needs from
// rocr, handed to it by Driver.Open, so that no driver imports package
// rocr (database/sql/driver never imports database/sql). Every method is
// safe from several goroutines.
type Host interface {
	// NewSignal creates one of the runtime's soft signals.
	NewSignal(initial int64) (HostSignal, error)
	// SignalWithBackend wraps a signal of the driver's runtime (a ROCR
	// doorbell) as a runtime signal.
	SignalWithBackend(b SignalBackend) HostSignal
	// SignalFromHandle finds the signal a packet's handle refers to; a
	// zero, unknown or destroyed handle is an error wrapping
	// ErrInvalidSignal.
	SignalFromHandle(h uint64) (HostSignal, error)
	// OnSignalMemory calls f with each signal slab's address range: at once
	// for those that exist and later for new ones (to make them visible to
	// a device).
	OnSignalMemory(f func(base, size uintptr) error) error
	// WaitBarrier resolves a barrier packet on the calling goroutine,
	// outside any queue.
	WaitBarrier(p *aql.BarrierAnd, or bool) error
	// FindAllocation describes the live allocation containing addr; ok is
	// false when there is none.
	FindAllocation(addr uintptr) (a Allocation, ok bool)
	// CheckRange applies the rules every agent applies to memory a packet
	// names: [addr, addr+size) lies in one live allocation that the agent
	// of q may access; size 0 checks the address alone. The allocation is
	// described when one was found, even with an error.
	CheckRange(q Queue, addr, size uintptr) (Allocation, error)
	// CheckBufferArgs applies the ownership rules to the buffer arguments
	// of one dispatch on q: each non-null address must lie in an
	// allocation q's agent may access. (It takes no visitor: a function
	// value passed through an interface escapes, an allocation per launch.)
	CheckBufferArgs(q Queue, kernel string, kernarg uintptr, args []BufferArg) error
	// MarkRunner marks the calling goroutine as one that runs q's packets
	// (a cpu worker), so that a wait it makes on its own queue is found.
	MarkRunner() Runner
}

// HostSignal is a runtime signal as a driver that reads and writes it
// sees it (rocr's *Signal).
type HostSignal interface {
	Signal
	// Addr is the address of the signal's value word.
	Addr() uintptr
	Load(o hsa.Order) int64
	Store(v int64, o hsa.Order)
	// WantsTimestamps reports whether the signal's user asked for the
	// start and end of the work that completes it; SetTimestamps records
	// them, in nanoseconds of the runtime's clock.
	WantsTimestamps() bool
	SetTimestamps(start, end uint64)
	Destroyed() bool
	Destroy() error

	// A completion the driver defers (the cuda driver's records, done when
	// the GPU's progress word passes seq): Armed is the signal's arm
	// count, which Store increments; Defer names the completer; Deferred
	// returns it (nil: none); CompleteArmed completes the signal unless it
	// was re-armed since Armed was read, and reports whether it did.
	Armed() uint64
	Defer(c *CompleterRef, seq uint64)
	Deferred() (Completer, uint64)
	CompleteArmed(arm uint64, err error) bool
}

// Runner is a goroutine marked by Host.MarkRunner.
type Runner interface {
	// Serve records that the goroutine runs q's packets from now on (nil:
	// none).
	Serve(q Queue)
	// Close unmarks the goroutine.
	Close()
}

// Allocation describes a live allocation of pool memory as a driver sees
// it. Two descriptions of one allocation have the same Base.
type Allocation struct {
	Base uintptr
	Size uintptr
	// Freed: the allocation was freed since it was found.
	Freed bool
	// Agent is the driver of the agent whose pool made it (nil: the host
	// or a variable of loaded code); HostPool says the pool is host memory.
	Agent    AgentDriver
	HostPool bool
	// Name names it in errors (its label).
	Name fmt.Stringer
}

func (a Allocation) String() string {
	if a.Name == nil {
		return fmt.Sprintf("allocation %#x", a.Base)
	}
	return a.Name.String()
}

// BufferArg is a kernel argument that holds a global buffer's address.
type BufferArg struct {
	Offset uintptr
	Name   string // for errors; empty: named by offset
}

// KernargSlotSize is the bytes of kernarg memory each packet slot of a
// soft queue has.
const KernargSlotSize = 4096
