package rocr

// ChainKernel is one kernel dispatch of a recorded chain: the fields of
// its AQL packet that a driver needs, and its kernarg image.
type ChainKernel struct {
	Object       uint64
	Grid, Block  [3]uint32 // work-items and work-group size, as in the packet
	GroupSegment uint32
	Kernarg      []byte
}

// Chain is a run of kernel dispatches recorded once, which the agent's
// driver replays with one call.
type Chain interface {
	// Launch queues the chain's dispatches, in order, on the agent's
	// native stream after what was queued there before. It is called by
	// an AgentNative packet's function, with the device current.
	Launch(stream uintptr) error
	// Close releases the recording. Launches already queued on the
	// device complete; Launch after Close is an error.
	Close() error
}

// ChainRecorder is an optional interface of an AgentDriver: it records a
// chain of kernel dispatches as one replayable unit (a CUDA graph on
// cuda). Without it, a graph's packets are written into the queue at each
// replay, which is what agents that read the queue themselves (cpu, rocm)
// do best anyway.
type ChainRecorder interface {
	RecordChain(ks []ChainKernel) (Chain, error)
}
