package spi

import (
	"unsafe"

	"github.com/hipgo/hipgo/internal/errtext"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// AgentWork is one AGENT_DISPATCH packet as rocr hands it to an agent:
// decoded, its registrations taken and its ranges checked, once for every
// driver. Executors carry it out (Executor.AgentWork); on a hardware queue
// rocr carries it out itself with the agent's Copier.
type AgentWork struct {
	// Kind is the packet's function code: aql.AgentCopy, aql.AgentFill,
	// aql.AgentRect, aql.AgentCallback or aql.AgentNative.
	Kind uint16
	// Dst is the destination of a copy or fill, Src the source of a copy.
	Dst, Src CopyEnd
	// Size is the number of bytes a copy or fill writes (0: nothing to do).
	Size uint64
	// Pattern, ElemSize and Count describe a fill: Count elements of
	// ElemSize bytes (1, 2, 4 or 8), each the low bytes of Pattern in
	// little-endian order.
	Pattern  uint64
	ElemSize int
	Count    uint64
	// Rect is a 2-D copy or fill (aql.AgentRect).
	Rect *Rect
	// Completion is the handle of the packet's completion signal (0: none).
	Completion uint64
	// Callback is an aql.AgentCallback packet's host function, Native an
	// aql.AgentNative packet's call; rocr sets the one the packet names.
	// Executors run them through RunHost.
	Callback func() error
	Native   func(stream uintptr) error
}

// CopyEnd is one end of a copy: pool memory that the agent may touch, or
// pinned Go memory (a pageable host buffer) that holds the copy's bytes.
type CopyEnd struct {
	Addr uintptr
	Host []byte
}

// Ptr is the end's address for a driver call. For Go memory it is valid
// while the packet's pin holds the slice (until its completion signal).
func (c CopyEnd) Ptr() uintptr {
	if c.Host != nil {
		return uintptr(unsafe.Pointer(unsafe.SliceData(c.Host)))
	}
	return c.Addr
}

// Bytes is the end as a slice of n bytes; pool memory must be host
// accessible (the cpu agent's).
func (c CopyEnd) Bytes(n uint64) []byte {
	if c.Host != nil {
		return c.Host[:n]
	}
	return hostmem.Bytes(c.Addr, uintptr(n))
}

// RunHost runs an aql.AgentCallback packet's host function, or an
// aql.AgentNative call with stream (0 where the agent has no native
// stream), on the calling goroutine. A panic or a nil error value of a
// non-nil type fails the packet instead of the process.
func (w *AgentWork) RunHost(stream uintptr) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = hsa.Errorf(hsa.StatusErrorException, "callback", "host callback panicked: %v", r)
		}
	}()
	switch {
	case w.Callback != nil:
		err = w.Callback()
	case w.Native != nil:
		err = w.Native(stream)
	default:
		return hsa.Errorf(hsa.StatusErrorInvalidPacketFormat, "callback", "agent work %#x has no host function", w.Kind)
	}
	if errtext.IsNilValue(err) {
		return hsa.Errorf(hsa.StatusErrorException, "callback", "host callback returned a nil %T as its error", err)
	}
	return err
}
