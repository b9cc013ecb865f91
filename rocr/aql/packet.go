package aql

import (
	"fmt"
	"unsafe"
)

// PacketSize is the size of every AQL packet and queue slot in bytes.
const PacketSize = 64

// PacketType is hsa_packet_type_t.
type PacketType uint8

// Packet types, with hsa.h's values.
const (
	TypeVendorSpecific PacketType = 0
	TypeInvalid        PacketType = 1
	TypeKernelDispatch PacketType = 2
	TypeBarrierAnd     PacketType = 3
	TypeAgentDispatch  PacketType = 4
	TypeBarrierOr      PacketType = 5
)

var typeNames = [...]string{"VENDOR_SPECIFIC", "INVALID", "KERNEL_DISPATCH", "BARRIER_AND", "AGENT_DISPATCH", "BARRIER_OR"}

func (t PacketType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("PacketType(%d)", uint8(t))
}

// FenceScope is hsa_fence_scope_t.
type FenceScope uint8

// Fence scopes, with hsa.h's values.
const (
	ScopeNone   FenceScope = 0
	ScopeAgent  FenceScope = 1
	ScopeSystem FenceScope = 2
)

func (s FenceScope) String() string {
	switch s {
	case ScopeNone:
		return "none"
	case ScopeAgent:
		return "agent"
	case ScopeSystem:
		return "system"
	}
	return fmt.Sprintf("FenceScope(%d)", uint8(s))
}

// Header bit positions and widths (hsa_packet_header_t and
// hsa_packet_header_width_t).
const (
	HeaderTypeShift         = 0
	HeaderTypeWidth         = 8
	HeaderBarrierShift      = 8
	HeaderBarrierWidth      = 1
	HeaderAcquireFenceShift = 9
	HeaderAcquireFenceWidth = 2
	HeaderReleaseFenceShift = 11
	HeaderReleaseFenceWidth = 2
	DispatchSetupDimsShift  = 0
	DispatchSetupDimsWidth  = 2
	headerTypeMask          = 1<<HeaderTypeWidth - 1
	headerFenceMask         = 1<<HeaderAcquireFenceWidth - 1
	AMDBarrierValueType     = 2 // HSA_AMD_PACKET_TYPE_BARRIER_VALUE in the vendor-specific format
)

// Header is the first 16 bits of every packet.
type Header uint16

// MakeHeader builds a packet header.
func MakeHeader(t PacketType, barrier bool, acquire, release FenceScope) Header {
	h := Header(t) << HeaderTypeShift
	if barrier {
		h |= 1 << HeaderBarrierShift
	}
	h |= Header(acquire&headerFenceMask) << HeaderAcquireFenceShift
	h |= Header(release&headerFenceMask) << HeaderReleaseFenceShift
	return h
}

// Type is the packet type.
func (h Header) Type() PacketType { return PacketType(h >> HeaderTypeShift & headerTypeMask) }

// Barrier reports whether the packet waits for all earlier packets to complete.
func (h Header) Barrier() bool { return h>>HeaderBarrierShift&1 == 1 }

// Acquire is the acquire fence scope.
func (h Header) Acquire() FenceScope {
	return FenceScope(h >> HeaderAcquireFenceShift & headerFenceMask)
}

// Release is the release fence scope.
func (h Header) Release() FenceScope {
	return FenceScope(h >> HeaderReleaseFenceShift & headerFenceMask)
}

func (h Header) String() string {
	b := ""
	if h.Barrier() {
		b = " barrier"
	}
	return fmt.Sprintf("%s%s acq=%s rel=%s", h.Type(), b, h.Acquire(), h.Release())
}

// KernelDispatch is hsa_kernel_dispatch_packet_t.
type KernelDispatch struct {
	Header             Header
	Setup              uint16
	WorkgroupSizeX     uint16
	WorkgroupSizeY     uint16
	WorkgroupSizeZ     uint16
	Reserved0          uint16
	GridSizeX          uint32
	GridSizeY          uint32
	GridSizeZ          uint32
	PrivateSegmentSize uint32
	GroupSegmentSize   uint32
	KernelObject       uint64
	KernargAddress     uint64
	Reserved2          uint64
	CompletionSignal   uint64
}

// Dims is the number of dimensions in the setup field.
func (p *KernelDispatch) Dims() int { return int(p.Setup >> DispatchSetupDimsShift & 3) }

// AgentDispatch is hsa_agent_dispatch_packet_t.
type AgentDispatch struct {
	Header           Header
	Type             uint16
	Reserved0        uint32
	ReturnAddress    uint64
	Arg              [4]uint64
	Reserved2        uint64
	CompletionSignal uint64
}

// BarrierAnd is hsa_barrier_and_packet_t; BARRIER_OR packets share its layout
// (hsa_barrier_or_packet_t).
type BarrierAnd struct {
	Header           Header
	Reserved0        uint16
	Reserved1        uint32
	DepSignal        [5]uint64
	Reserved2        uint64
	CompletionSignal uint64
}

// BarrierOr is hsa_barrier_or_packet_t.
type BarrierOr = BarrierAnd

// MaxBarrierDeps is the number of dependency signals one barrier packet holds.
const MaxBarrierDeps = 5

// Slot is one raw 64-byte queue slot.
type Slot [PacketSize]byte

// Compile-time size checks.
var (
	_ [PacketSize - unsafe.Sizeof(KernelDispatch{})]byte
	_ [unsafe.Sizeof(KernelDispatch{}) - PacketSize]byte
	_ [PacketSize - unsafe.Sizeof(AgentDispatch{})]byte
	_ [unsafe.Sizeof(AgentDispatch{}) - PacketSize]byte
	_ [PacketSize - unsafe.Sizeof(BarrierAnd{})]byte
	_ [unsafe.Sizeof(BarrierAnd{}) - PacketSize]byte
)
