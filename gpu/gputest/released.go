package gputest

import (
	"errors"
	"testing"

	"github.com/hipgo/hipgo/gpu"
)

// releasedCodes are the runtime's answers to a call whose buffer, view,
// stream or runtime was released while it ran: the object's own codes,
// and the loader's ErrNotInitialized for a kernel library loaded while
// gpu.Shutdown runs.
var releasedCodes = []gpu.ErrorCode{gpu.ErrInvalidValue, gpu.ErrInvalidHandle, gpu.ErrContextIsDestroyed,
	gpu.ErrDeinitialized, gpu.ErrInvalidDevice, gpu.ErrIllegalState, gpu.ErrNotInitialized}

// Released fails tb unless err is nil or one of the runtime's errors for
// a released object: what a call racing a Free, a Destroy or
// gpu.Shutdown may return. what names the call in the failure.
func Released(tb testing.TB, err error, what string) {
	tb.Helper()
	if err == nil {
		return
	}
	for _, code := range releasedCodes {
		if errors.Is(err, code) {
			return
		}
	}
	tb.Errorf("%s: %v: want a released-object error", what, err)
}
