package rocr

import "github.com/hipgo/hipgo/rocr/internal/runner"

// ErrSelfWait is a call that would wait for the packet its caller is
// running (a host callback or kernel that synchronizes, destroys or fills
// its own queue, or shuts the runtime down): it would never return.
var ErrSelfWait = errSelfWait{}

type errSelfWait struct{}

func (errSelfWait) Error() string { return "would wait for the packet it runs in" }

// RunningQueue returns the queue whose packet the calling goroutine is
// running, or nil. It costs microseconds: call it on a path that is about
// to block, not on every call.
func RunningQueue() *Queue { return runner.Running[Queue]() }
