package stream_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
)

// The call that waited for a failed kernel reports its failure; a later
// call on the stream, which did not fail itself, says the stream failed
// earlier, and the kernel's error stays underneath.
func TestStickyFailureSaysEarlier(t *testing.T) {
	e := setup(t)
	s := e.stream()
	x := newBuf(t, e.dev, 4)
	e.launch(s, "test_panic")
	first := s.Synchronize()
	require.ErrorIs(t, first, gpu.ErrLaunchFailure)
	assert.Contains(t, first.Error(), "test_panic")
	assert.NotContains(t, first.Error(), "failed earlier", "the wait that saw the failure reports it as its own")

	earlier := fmt.Sprintf("stream %d failed earlier: ", core.StreamOf(s).Queue().ID())
	for name, call := range map[string]func() error{
		"launch":      func() error { return e.tryLaunch(s, "stream_test_inc", x, int32(4)) },
		"memset":      func() error { return s.Memset(x, 1) },
		"record":      func() error { return s.Record(e.event(0)) },
		"synchronize": s.Synchronize,
		"query":       s.Query,
	} {
		err := call()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), earlier, name)
		assert.Contains(t, err.Error(), "test_panic", name)
		assert.ErrorIs(t, err, gpu.ErrLaunchFailure, name)
		assert.ErrorIs(t, err, first, "%s: errors.Is the original failure", name)
		var pe *cpu.PanicError
		assert.ErrorAs(t, err, &pe, name)
	}
	require.NoError(t, s.Destroy())
}
