package hsa

// QueueType is hsa_queue_type_t.
type QueueType uint32

// Queue types, with hsa.h's values.
const (
	QueueMulti  QueueType = 0
	QueueSingle QueueType = 1
)

// Condition is hsa_signal_condition_t.
type Condition uint32

// Signal conditions, with hsa.h's values.
const (
	CondEQ  Condition = 0
	CondNE  Condition = 1
	CondLT  Condition = 2
	CondGTE Condition = 3
)

// Holds reports whether v satisfies the condition against cmp; a value
// past CondGTE reads as CondGTE.
func (c Condition) Holds(v, cmp int64) bool {
	switch c {
	case CondEQ:
		return v == cmp
	case CondNE:
		return v != cmp
	case CondLT:
		return v < cmp
	default:
		return v >= cmp
	}
}

// WaitHint is hsa_wait_state_t: spin (active) or yield the thread (blocked).
type WaitHint uint32

// Wait hints, with hsa.h's values.
const (
	WaitBlocked WaitHint = 0
	WaitActive  WaitHint = 1
)

// Memory orderings of signal operations. Go's atomics are sequentially
// consistent, which satisfies relaxed, acquire and release alike; the
// orderings exist so code reads like the HSA calls it mirrors.
type Order uint8

// Orderings.
const (
	Relaxed Order = iota
	Acquire
	Release
	AcqRel
)
