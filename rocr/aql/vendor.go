package aql

import (
	"strconv"
	"unsafe"
)

// Condition is hsa_signal_condition_t, as the 32-bit hsa_signal_condition32_t
// that vendor packets carry.
type Condition uint32

// Signal conditions, with hsa.h's values.
const (
	CondEQ  Condition = 0
	CondNE  Condition = 1
	CondLT  Condition = 2
	CondGTE Condition = 3
)

func (c Condition) String() string {
	switch c {
	case CondEQ:
		return "EQ"
	case CondNE:
		return "NE"
	case CondLT:
		return "LT"
	case CondGTE:
		return "GTE"
	}
	return "Condition(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// AMDBarrierValue is hsa_amd_barrier_value_packet_t of hsa_ext_amd.h: a
// VENDOR_SPECIFIC packet (AMDFormat AMDBarrierValueType) that holds back later
// packets until (value of Signal & Mask) Cond Value holds. A zero Signal is a
// satisfied dependency.
type AMDBarrierValue struct {
	Header           Header // type TypeVendorSpecific
	AMDFormat        uint8  // hsa_amd_vendor_packet_header_t.AmdFormat
	Reserved         uint8  // hsa_amd_vendor_packet_header_t.reserved
	Reserved0        uint32
	Signal           uint64
	Value            int64
	Mask             int64
	Cond             Condition
	Reserved1        uint32
	Reserved2        uint64
	Reserved3        uint64
	CompletionSignal uint64
}

var (
	_ [PacketSize - unsafe.Sizeof(AMDBarrierValue{})]byte
	_ [unsafe.Sizeof(AMDBarrierValue{}) - PacketSize]byte
)
