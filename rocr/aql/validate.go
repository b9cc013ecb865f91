package aql

import (
	"errors"
	"strconv"
	"unsafe"
)

// ErrMalformed is wrapped by every error of Validate and Decode. A packet
// processor reports it as HSA_STATUS_ERROR_INVALID_PACKET_FORMAT.
var ErrMalformed = errors.New("malformed AQL packet")

// FieldError says which field of a packet is malformed and why.
type FieldError struct {
	Type   PacketType // the header's type, possibly unknown
	Field  string     // hsa.h's name for the field, e.g. "workgroup_size_y", "header.type"
	Value  uint64     // the field's value
	Reason string
}

func (e *FieldError) Error() string {
	return "aql: " + e.Type.String() + " packet: " + e.Field + " = " +
		strconv.FormatUint(e.Value, 10) + ": " + e.Reason
}

// Unwrap makes errors.Is(err, ErrMalformed) hold.
func (e *FieldError) Unwrap() error { return ErrMalformed }

func malformed(t PacketType, field string, v uint64, reason string) error {
	return &FieldError{Type: t, Field: field, Value: v, Reason: reason}
}

// Header returns the slot's header, read as plain bytes. A processor that
// races with a producer publishes and reads the header atomically itself.
func (s *Slot) Header() Header { return Header(s[0]) | Header(s[1])<<8 }

// Decode returns the header of the packet in s and, if the packet is
// malformed, an error naming the field. It does not allocate unless the
// packet is malformed.
func Decode(s *Slot) (Header, error) {
	h := s.Header()
	return h, validate(h, s)
}

// Validate checks the packet in s as a packet processor would before running
// it. It rejects only what hsa.h and the HSA specification call invalid; it
// ignores reserved fields (ROCm tools store correlation ids in some) and
// accepts a grid that is not a multiple of the work-group size (the last
// work-groups are partial). A packet of type INVALID is reported as
// malformed: a processor waits for publication before it validates.
// Validate does not allocate unless the packet is malformed.
func Validate(s *Slot) error { return validate(s.Header(), s) }

func validate(h Header, s *Slot) error {
	switch h.Type() {
	case TypeKernelDispatch:
		p := load[KernelDispatch](s)
		return p.Validate()
	case TypeAgentDispatch:
		p := load[AgentDispatch](s)
		return p.Validate()
	case TypeBarrierAnd, TypeBarrierOr:
		p := load[BarrierAnd](s)
		return p.Validate()
	case TypeVendorSpecific:
		if s[2] != AMDBarrierValueType {
			if err := h.Validate(); err != nil {
				return err
			}
			return malformed(TypeVendorSpecific, "AmdFormat", uint64(s[2]), "unknown AMD vendor packet format")
		}
		p := load[AMDBarrierValue](s)
		return p.Validate()
	}
	return h.Validate()
}

// load copies a slot into a packet struct; the copy is aligned even when the
// slot is not.
func load[T KernelDispatch | AgentDispatch | BarrierAnd | AMDBarrierValue](s *Slot) (p T) {
	copy((*Slot)(unsafe.Pointer(&p))[:], s[:])
	return p
}

// Validate checks the header alone: a known, processable type and no
// reserved fence scope.
func (h Header) Validate() error {
	t := h.Type()
	switch {
	case t > TypeBarrierOr:
		return malformed(t, "header.type", uint64(t), "unknown packet type")
	case t == TypeInvalid:
		return malformed(t, "header.type", uint64(t), "an INVALID packet is never processed")
	case h.Acquire() > ScopeSystem:
		return malformed(t, "header.acquire_fence_scope", uint64(h.Acquire()), "reserved fence scope")
	case h.Release() > ScopeSystem:
		return malformed(t, "header.release_fence_scope", uint64(h.Release()), "reserved fence scope")
	}
	return nil
}

func (h Header) validateAs(want PacketType) error {
	if t := h.Type(); t != want {
		return malformed(t, "header.type", uint64(t), "not a "+want.String()+" packet")
	}
	return h.Validate()
}

var (
	wgFields   = [3]string{"workgroup_size_x", "workgroup_size_y", "workgroup_size_z"}
	gridFields = [3]string{"grid_size_x", "grid_size_y", "grid_size_z"}
	smaller    = [3]string{"smaller than workgroup_size_x", "smaller than workgroup_size_y", "smaller than workgroup_size_z"}
	unusedDim  = [4]string{1: "must be 1 in a 1-dimensional dispatch", 2: "must be 1 in a 2-dimensional dispatch"}
)

// Validate checks a kernel dispatch: dimensions 1 to 3; in each used
// dimension a work-group size and a grid size of at least 1, the grid no
// smaller than the work-group; sizes 1 in unused dimensions; a kernel object.
func (p *KernelDispatch) Validate() error {
	if err := p.Header.validateAs(TypeKernelDispatch); err != nil {
		return err
	}
	dims := p.Dims()
	if dims == 0 {
		return malformed(TypeKernelDispatch, "setup.dimensions", 0, "must be 1, 2 or 3")
	}
	wg := [3]uint32{uint32(p.WorkgroupSizeX), uint32(p.WorkgroupSizeY), uint32(p.WorkgroupSizeZ)}
	grid := [3]uint32{p.GridSizeX, p.GridSizeY, p.GridSizeZ}
	for d := range 3 {
		switch {
		case d >= dims && wg[d] != 1:
			return malformed(TypeKernelDispatch, wgFields[d], uint64(wg[d]), unusedDim[dims])
		case d >= dims && grid[d] != 1:
			return malformed(TypeKernelDispatch, gridFields[d], uint64(grid[d]), unusedDim[dims])
		case wg[d] == 0:
			return malformed(TypeKernelDispatch, wgFields[d], 0, "must be at least 1")
		case grid[d] == 0:
			return malformed(TypeKernelDispatch, gridFields[d], 0, "must be at least 1")
		case grid[d] < wg[d]:
			return malformed(TypeKernelDispatch, gridFields[d], uint64(grid[d]), smaller[d])
		}
	}
	if p.KernelObject == 0 {
		return malformed(TypeKernelDispatch, "kernel_object", 0, "null kernel object")
	}
	return nil
}

// Validate checks an agent dispatch's header; its function code and
// arguments belong to the agent that runs it.
func (p *AgentDispatch) Validate() error { return p.Header.validateAs(TypeAgentDispatch) }

// Validate checks a BARRIER_AND or BARRIER_OR packet's header; zero
// dependency signals are allowed and ignored.
func (p *BarrierAnd) Validate() error {
	if p.Header.Type() == TypeBarrierOr {
		return p.Header.validateAs(TypeBarrierOr)
	}
	return p.Header.validateAs(TypeBarrierAnd)
}

// Validate checks an AMD barrier-value packet: a vendor-specific header, the
// barrier-value format and a known condition.
func (p *AMDBarrierValue) Validate() error {
	if err := p.Header.validateAs(TypeVendorSpecific); err != nil {
		return err
	}
	if p.AMDFormat != AMDBarrierValueType {
		return malformed(TypeVendorSpecific, "AmdFormat", uint64(p.AMDFormat), "not a barrier-value packet")
	}
	if p.Cond > CondGTE {
		return malformed(TypeVendorSpecific, "cond", uint64(p.Cond), "unknown signal condition")
	}
	return nil
}
