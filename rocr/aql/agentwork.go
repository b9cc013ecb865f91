package aql

// The project's AGENT_DISPATCH packets: every function code, every flag,
// and the one place that lays their arguments out in the packet's four
// words. Producers build an AgentCall from a typed work value; agents read
// the arguments back with the matching Decode function.

// Function codes of the project's AGENT_DISPATCH packets (HSA leaves
// 0x8000-0xFFFF to applications). Every stream operation is an AQL packet:
// copies, fills and host callbacks included.
const (
	AgentCopy     uint16 = 0x8001 // CopyWork
	AgentFill     uint16 = 0x8002 // FillWork
	AgentCallback uint16 = 0x8003 // CallbackWork
	AgentNative   uint16 = 0x8004 // NativeWork
	AgentRect     uint16 = 0x8005 // RectWork
)

// CopyFlags describe a copy's ends.
type CopyFlags uint64

const (
	// CopySrcHost: the source is host memory outside any pool (a Go slice
	// pinned under the id in Src).
	CopySrcHost CopyFlags = 1 << 0
	// CopyDstHost: the destination is host memory outside any pool.
	CopyDstHost CopyFlags = 1 << 1
)

// NativeFlags describe a native call.
type NativeFlags uint64

// NativeQueuesOnly says the call only queues work on the stream and
// returns (a graph launch, most library calls): an idle queue may make it
// on the submitting goroutine, as it does a kernel launch, instead of
// handing it to its processor.
const NativeQueuesOnly NativeFlags = 1

// AgentCall is the function code and arguments of one AGENT_DISPATCH
// packet, as the typed work values encode them.
type AgentCall struct {
	Func uint16
	Arg  [4]uint64
}

// Packet is the call as an agent-dispatch packet with the given completion
// signal; its header is left for the submitter to publish.
func (c AgentCall) Packet(completion uint64) AgentDispatch {
	return AgentDispatch{Type: c.Func, Arg: c.Arg, CompletionSignal: completion}
}

// CopyWork copies Bytes bytes from Src to Dst (AgentCopy). An end is a
// pool address, or with its CopyFlags bit the id of a pinned Go slice.
type CopyWork struct {
	Dst, Src uint64
	Bytes    uint64
	Flags    CopyFlags
}

// Call encodes w: Arg[0] dst, Arg[1] src, Arg[2] bytes, Arg[3] flags.
func (w CopyWork) Call() AgentCall {
	return AgentCall{Func: AgentCopy, Arg: [4]uint64{w.Dst, w.Src, w.Bytes, uint64(w.Flags)}}
}

// DecodeCopy reads the arguments of an AgentCopy packet.
func DecodeCopy(arg [4]uint64) CopyWork {
	return CopyWork{Dst: arg[0], Src: arg[1], Bytes: arg[2], Flags: CopyFlags(arg[3])}
}

// FillWork writes Count elements of ElemSize bytes (1, 2, 4 or 8) at Dst,
// each the low bytes of Pattern in little-endian order (AgentFill).
type FillWork struct {
	Dst      uint64
	Pattern  uint64
	Count    uint64
	ElemSize uint64
}

// Call encodes w: Arg[0] dst, Arg[1] pattern, Arg[2] element count,
// Arg[3] element size.
func (w FillWork) Call() AgentCall {
	return AgentCall{Func: AgentFill, Arg: [4]uint64{w.Dst, w.Pattern, w.Count, w.ElemSize}}
}

// DecodeFill reads the arguments of an AgentFill packet.
func DecodeFill(arg [4]uint64) FillWork {
	return FillWork{Dst: arg[0], Pattern: arg[1], Count: arg[2], ElemSize: arg[3]}
}

// CallbackWork runs a host callback registered under ID
// (hostref.RegisterCallback) once the work before it is done
// (AgentCallback).
type CallbackWork struct {
	ID uint64
}

// Call encodes w: Arg[0] the callback id.
func (w CallbackWork) Call() AgentCall {
	return AgentCall{Func: AgentCallback, Arg: [4]uint64{w.ID}}
}

// DecodeCallback reads the arguments of an AgentCallback packet.
func DecodeCallback(arg [4]uint64) CallbackWork { return CallbackWork{ID: arg[0]} }

// NativeWork makes the call registered under ID (hostref.RegisterNative)
// with the agent's native stream (AgentNative). Agents with one (cuda) run
// the call in stream order on it, without draining it (a library such as
// cuBLAS queues its work there); the others run it as a host callback with
// stream 0.
type NativeWork struct {
	ID    uint64
	Flags NativeFlags
}

// Call encodes w: Arg[0] the call id, Arg[1] flags.
func (w NativeWork) Call() AgentCall {
	return AgentCall{Func: AgentNative, Arg: [4]uint64{w.ID, uint64(w.Flags)}}
}

// DecodeNative reads the arguments of an AgentNative packet.
func DecodeNative(arg [4]uint64) NativeWork {
	return NativeWork{ID: arg[0], Flags: NativeFlags(arg[1])}
}

// RectWork is a 2-D or 3-D copy or fill (hipMemcpy2D, hipMemcpy3D,
// hipMemset2D, hipMemset3D) whose descriptor, more than the packet's four
// words hold, is registered under ID (hostref.RegisterRect) for the
// executor to take once (AgentRect).
type RectWork struct {
	ID uint64
}

// Call encodes w: Arg[0] the descriptor id.
func (w RectWork) Call() AgentCall {
	return AgentCall{Func: AgentRect, Arg: [4]uint64{w.ID}}
}

// DecodeRect reads the arguments of an AgentRect packet.
func DecodeRect(arg [4]uint64) RectWork { return RectWork{ID: arg[0]} }
