package hsa

import "strconv"

// Advice is a managed memory hint (hipMemoryAdvise; CUDA's CUmem_advise
// has the same values).
type Advice int

const (
	AdviseSetReadMostly          Advice = 1 // copies may be made where it is read
	AdviseUnsetReadMostly        Advice = 2
	AdviseSetPreferredLocation   Advice = 3 // keep it in this agent's (or the host's) memory
	AdviseUnsetPreferredLocation Advice = 4
	AdviseSetAccessedBy          Advice = 5 // keep it mapped for this agent
	AdviseUnsetAccessedBy        Advice = 6
)

func (v Advice) String() string {
	switch v {
	case AdviseSetReadMostly:
		return "set read mostly"
	case AdviseUnsetReadMostly:
		return "unset read mostly"
	case AdviseSetPreferredLocation:
		return "set preferred location"
	case AdviseUnsetPreferredLocation:
		return "unset preferred location"
	case AdviseSetAccessedBy:
		return "set accessed by"
	case AdviseUnsetAccessedBy:
		return "unset accessed by"
	}
	return "advice(" + strconv.Itoa(int(v)) + ")"
}
