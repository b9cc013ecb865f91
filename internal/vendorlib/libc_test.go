package vendorlib_test

import (
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// TestFlushCReachesCapture: C's stdout on a pipe is fully buffered, so
// what a C library prints reaches a capture only because CaptureStdout
// flushes it (vendorlib.FlushC) before it reads.
func TestFlushCReachesCapture(t *testing.T) {
	libc, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Skipf("no libc.so.6: %v", err)
	}
	var printf func(string) int32
	purego.RegisterLibFunc(&printf, libc, "printf")
	out := testenv.CaptureStdout(t, func() {
		require.Equal(t, int32(7), printf("from C\n"))
	})
	assert.Equal(t, "from C\n", out)
}
