// Package hostwork lets gpu packages queue work that is not a kernel (Go
// code on the host, a library call on the agent's native stream) on a
// stream, with the buffers it reads and writes declared to the stream's
// dependency tracking, so it is ordered with kernels and copies like they
// are. gpu/stream installs Launch when it is initialized. The work's
// functions reach the agent through internal/hostref, rocr's registry of
// the Go values that packets refer to by id.
package hostwork

import (
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostref"
)

// Work is one piece of stream work. Exactly one of Host and Native is set.
type Work struct {
	Op     string      // names the work in errors
	Reads  []*core.Mem // buffers the work reads
	Writes []*core.Mem // buffers the work writes
	// Host runs on the host in stream order (a host callback).
	Host func() error
	// Native is called with the agent's native stream in stream order
	// (aql.AgentNative); agents without one call it with 0 as host work.
	Native hostref.NativeFunc
	// QueuesOnly says Native only queues work on the stream and returns:
	// an idle stream may then make the call on the caller's goroutine
	// (aql.NativeQueuesOnly).
	QueuesOnly bool
}

// Launch queues w on stream, a *stream.Stream. It is set by gpu/stream
// (which imports this package, so the stream type cannot be named here).
var Launch func(stream any, w *Work) error
