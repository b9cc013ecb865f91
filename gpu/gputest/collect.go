package gputest

import (
	"runtime"

	"github.com/hipgo/hipgo/gpu/internal/core"
)

// Collect runs the garbage collector and waits for the backstop releases
// it started until done reports true, at most 100 rounds, and reports
// whether done did: a test of the leak backstop waits with it for the
// objects it dropped. The backstop runs on the runtime's cleanup
// goroutine, so one collection is not always enough.
func Collect(done func() bool) bool {
	for range 100 {
		runtime.GC()
		core.WaitBackstops()
		if done() {
			return true
		}
		runtime.Gosched()
	}
	return false
}
