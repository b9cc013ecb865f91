package stream_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu/internal/debug"
)

// AMD_SERIALIZE_COPY=2 drains the stream after each copy or fill, as HIP
// does: a fill queued behind a slow host function returns only once the
// host function and the fill are done; 1 drains it before; 0 does
// neither.
func TestSerializeCopy(t *testing.T) {
	e := setup(t)
	s := e.stream()
	b := newBuf(t, e.dev, 256)
	defer b.Free()
	for _, tc := range []struct {
		env  string
		wait bool
	}{{"0", false}, {"1", true}, {"2", true}, {"3", true}} {
		t.Run("AMD_SERIALIZE_COPY="+tc.env, func(t *testing.T) {
			t.Setenv("AMD_SERIALIZE_COPY", tc.env)
			debug.ReadEnv()
			defer debug.ReadEnv()
			var ran atomic.Bool
			gate := make(chan struct{})
			require.NoError(t, s.LaunchHostFunc(func() error {
				<-gate
				time.Sleep(20 * time.Millisecond)
				ran.Store(true)
				return nil
			}))
			if !tc.wait {
				require.NoError(t, s.Memset(b, 7))
				assert.False(t, ran.Load(), "the fill waited for the stream")
				close(gate)
				require.NoError(t, s.Synchronize())
				return
			}
			// The host function must be able to finish while the fill's
			// call waits for it.
			close(gate)
			require.NoError(t, s.Memset(b, 7))
			assert.True(t, ran.Load(), "the fill returned before the stream drained")
			require.NoError(t, s.Synchronize())
		})
	}
	t.Setenv("AMD_SERIALIZE_COPY", "")
	debug.ReadEnv()
}
