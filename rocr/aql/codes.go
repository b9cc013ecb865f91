package aql

import "fmt"

// CodeInfo describes one AGENT_DISPATCH function code: what the trace, the
// executors and the submit path need to know of a packet beyond running
// it. Code is the one place these facts live; nothing else switches on a
// code to learn them.
type CodeInfo struct {
	// Name is the code's name in traces and errors.
	Name string
	// Transfer: the code copies or fills memory (what AMD_SERIALIZE_COPY
	// serializes), rather than running host work.
	Transfer bool
	// GoMemory reports whether a packet with these arguments may read or
	// write Go memory outside every pool: a pinned slice (a copy's host
	// end) or host work that touches what it likes (callbacks, native
	// calls, 2-D and 3-D copies, whose descriptor names the ends).
	GoMemory func(arg [4]uint64) bool
	// Inline reports whether a packet with these arguments returns at once
	// when made on the submitting goroutine (it only queues work on the
	// agent's own stream), so that an idle queue may make it there instead
	// of handing it to its processor.
	Inline func(arg [4]uint64) bool
	// Bytes is how many bytes the packet moves, for traces; 0 where the
	// packet alone does not say.
	Bytes func(arg [4]uint64) uint64
}

func always([4]uint64) bool    { return true }
func never([4]uint64) bool     { return false }
func noBytes([4]uint64) uint64 { return 0 }

var codes = [...]CodeInfo{
	AgentCopy - agentFirst: {
		Name:     "copy",
		Transfer: true,
		GoMemory: func(arg [4]uint64) bool {
			return DecodeCopy(arg).Flags&(CopyDstHost|CopySrcHost) != 0
		},
		// A copy from or to pageable host memory returns only once the
		// copy is staged or done, which may wait for earlier work.
		Inline: func(arg [4]uint64) bool {
			return DecodeCopy(arg).Flags&(CopyDstHost|CopySrcHost) == 0
		},
		Bytes: func(arg [4]uint64) uint64 { return DecodeCopy(arg).Bytes },
	},
	AgentFill - agentFirst: {
		Name:     "fill",
		Transfer: true,
		GoMemory: never,
		Inline:   always,
		Bytes: func(arg [4]uint64) uint64 {
			f := DecodeFill(arg)
			return f.Count * f.ElemSize
		},
	},
	AgentCallback - agentFirst: {Name: "host callback", GoMemory: always, Inline: never, Bytes: noBytes},
	AgentNative - agentFirst: {
		Name:     "native call",
		GoMemory: always,
		Inline:   func(arg [4]uint64) bool { return DecodeNative(arg).Flags&NativeQueuesOnly != 0 },
		Bytes:    noBytes,
	},
	AgentRect - agentFirst: {Name: "2-d copy", Transfer: true, GoMemory: always, Inline: never, Bytes: noBytes},
}

const agentFirst = AgentCopy

// Code describes code; ok is false for a code the project does not define
// (its Name then says "agent dispatch" and the code, and it is neither
// inline nor free of Go memory).
func Code(code uint16) (info CodeInfo, ok bool) {
	if i := int(code) - int(agentFirst); i >= 0 && i < len(codes) {
		return codes[i], true
	}
	return CodeInfo{
		Name:     fmt.Sprintf("agent dispatch %#x", code),
		GoMemory: always,
		Inline:   never,
		Bytes:    noBytes,
	}, false
}

// Codes lists every function code the project defines, in order.
func Codes() []uint16 {
	out := make([]uint16, len(codes))
	for i := range codes {
		out[i] = agentFirst + uint16(i)
	}
	return out
}
