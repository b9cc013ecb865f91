package aql

import "fmt"

// The String methods are for debug logs (HSA_ENABLE_DEBUG); they allocate.

func (p *KernelDispatch) String() string {
	return fmt.Sprintf("%v dims=%d wg=[%d %d %d] grid=[%d %d %d] private=%d group=%d kernel=%#x kernarg=%#x signal=%#x",
		p.Header, p.Dims(), p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ,
		p.GridSizeX, p.GridSizeY, p.GridSizeZ, p.PrivateSegmentSize, p.GroupSegmentSize,
		p.KernelObject, p.KernargAddress, p.CompletionSignal)
}

func (p *AgentDispatch) String() string {
	return fmt.Sprintf("%v type=%d return=%#x args=[%#x %#x %#x %#x] signal=%#x",
		p.Header, p.Type, p.ReturnAddress, p.Arg[0], p.Arg[1], p.Arg[2], p.Arg[3], p.CompletionSignal)
}

// String shows a BARRIER_AND or BARRIER_OR packet; the header says which.
func (p *BarrierAnd) String() string {
	return fmt.Sprintf("%v deps=[%#x %#x %#x %#x %#x] signal=%#x",
		p.Header, p.DepSignal[0], p.DepSignal[1], p.DepSignal[2], p.DepSignal[3], p.DepSignal[4], p.CompletionSignal)
}

func (p *AMDBarrierValue) String() string {
	return fmt.Sprintf("%v AMD_BARRIER_VALUE format=%d wait (%#x & %#x) %v %#x signal=%#x",
		p.Header, p.AMDFormat, p.Signal, p.Mask, p.Cond, p.Value, p.CompletionSignal)
}

// String formats the packet in s by its type, and says why it is malformed
// if it is. It never fails, whatever the bytes.
func (s *Slot) String() string {
	h := s.Header()
	var body string
	switch h.Type() {
	case TypeKernelDispatch:
		p := load[KernelDispatch](s)
		body = p.String()
	case TypeAgentDispatch:
		p := load[AgentDispatch](s)
		body = p.String()
	case TypeBarrierAnd, TypeBarrierOr:
		p := load[BarrierAnd](s)
		body = p.String()
	case TypeVendorSpecific:
		if s[2] == AMDBarrierValueType {
			p := load[AMDBarrierValue](s)
			body = p.String()
			break
		}
		body = fmt.Sprintf("%v AmdFormat=%d raw=%x", h, s[2], s[:])
	default:
		body = fmt.Sprintf("%v raw=%x", h, s[:])
	}
	if err := validate(h, s); err != nil && h.Type() != TypeInvalid {
		body += " (" + err.Error() + ")"
	}
	return body
}
