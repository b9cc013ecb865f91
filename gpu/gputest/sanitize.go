package gputest

import (
	"testing"

	"github.com/hipgo/hipgo/rocr/spi"
)

// Sanitize turns the cpu agent's sanitizer on until tb ends, as
// HIPGO_SANITIZE=1 does for a whole process: kernel reads (through const
// pointers) of device memory never written since allocation fail the
// launch, naming the kernel, the buffer and the address range, and a
// buffer used on a stream with automatic dependencies off (ManualDeps)
// while another stream's unordered work on it may still run is an error.
// It covers buffers allocated after the call. The switch is the process's:
// parallel tests see it on while any test that asked for it runs.
func Sanitize(tb testing.TB) {
	tb.Helper()
	tb.Cleanup(spi.EnableSanitize())
}
