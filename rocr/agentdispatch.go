package rocr

import "github.com/hipgo/hipgo/internal/hostref"

// Function codes of the project's AGENT_DISPATCH packets (HSA leaves
// 0x8000-0xFFFF to applications). Every stream operation is an AQL packet:
// copies, fills and host callbacks included.
const (
	// AgentCopy: Arg[0] dst, Arg[1] src, Arg[2] bytes, Arg[3] CopyFlags.
	AgentCopy uint16 = 0x8001
	// AgentFill: Arg[0] dst, Arg[1] pattern, Arg[2] element count,
	// Arg[3] element size in bytes (1, 2, 4 or 8).
	AgentFill uint16 = 0x8002
	// AgentCallback: Arg[0] a callback id from hostref.RegisterCallback.
	AgentCallback uint16 = 0x8003
	// AgentNative: Arg[0] a call id from RegisterNative. Agents with a
	// native stream (cuda) run the call in stream order on it, without
	// draining it (a library such as cuBLAS queues its work there); the
	// others run it as a host callback with stream 0.
	// Arg[1] NativeQueuesOnly, or 0.
	AgentNative uint16 = 0x8004
)

// NativeQueuesOnly in an AgentNative packet's Arg[1] says the call only
// queues work on the stream and returns (a graph launch, most library
// calls): an idle queue may make it on the submitting goroutine, as it
// does a kernel launch, instead of handing it to its processor.
const NativeQueuesOnly uint64 = 1

// CopyFlags describe a copy's ends.
const (
	// CopySrcHost: the source is host memory outside any pool (a Go slice).
	CopySrcHost uint64 = 1 << 0
	// CopyDstHost: the destination is host memory outside any pool.
	CopyDstHost uint64 = 1 << 1
)

// PinnedBytes returns the first n bytes of the slice pinned under id, or
// an error when none is pinned there or it is shorter: what a copy packet's
// host end must satisfy.
func PinnedBytes(id, n uint64) ([]byte, error) {
	b, ok := hostref.HostBuffer(id)
	if !ok {
		return nil, Errorf(StatusErrorInvalidArgument, "copy", "host buffer %d is not pinned", id)
	}
	if uint64(len(b)) < n {
		return nil, Errorf(StatusErrorInvalidArgument, "copy", "host buffer of %d bytes is shorter than %d", len(b), n)
	}
	return b[:n], nil
}
