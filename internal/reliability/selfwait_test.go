package reliability_test

import (
	"sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// selfHook is what reliability_self runs from inside a kernel; its result
// goes to selfErr.
var (
	selfMu   sync.Mutex
	selfHook func() error
	selfErr  error
)

type selfArgs struct{ Code int32 }

var selfK = kernel.Define("reliability_self", func(g *kernel.Block, a *selfArgs) {
	selfMu.Lock()
	hook := selfHook
	selfMu.Unlock()
	if hook == nil || g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	err := hook()
	selfMu.Lock()
	selfErr = err
	selfMu.Unlock()
})

var noopK = kernel.Define("reliability_noop", func(g *kernel.Block, a *selfArgs) {})

var selfSet = kernel.NewSet("reliability_self", selfK, noopK)

// runInKernel launches reliability_self on s with hook and returns what
// the hook returned.
func runInKernel(t *testing.T, m *module.Module, s *stream.Stream, hook func() error) error {
	t.Helper()
	selfMu.Lock()
	selfHook, selfErr = hook, nil
	selfMu.Unlock()
	defer func() {
		selfMu.Lock()
		selfHook = nil
		selfMu.Unlock()
	}()
	if err := m.MustFunction("reliability_self").Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(0)); err != nil {
		return err
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	selfMu.Lock()
	defer selfMu.Unlock()
	return selfErr
}

// TestSelfWait: a host function or Go kernel that would wait for its own
// stream (Synchronize, Destroy, filling its queue) or for every queue
// (gpu.Shutdown) gets ErrNotPermitted naming the cycle instead of hanging;
// waits that are not cycles still wait.
func TestSelfWait(t *testing.T) {
	f := open(t, 1)
	m, err := module.Load(f.dev, selfSet)
	require.NoError(t, err)
	cycle := []string{"queue", "would wait"}
	hostFunc := func(t *testing.T, s *stream.Stream, fn func() error) error {
		var got error
		if err := s.LaunchHostFunc(func() error { got = fn(); return nil }); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		return got
	}
	t.Run("host function synchronizes its stream", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = hostFunc(t, s, s.Synchronize)
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, append(cycle, "stream synchronize")...)
		assert.NoError(t, s.Synchronize(), "the stream after the refused call")
		assert.NoError(t, s.Destroy())
	})
	t.Run("host function destroys its stream", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = hostFunc(t, s, s.Destroy)
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, append(cycle, "stream destroy")...)
		assert.NoError(t, s.Destroy(), "the stream is still there")
	})
	t.Run("host function shuts down", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = hostFunc(t, s, gpu.Shutdown)
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, append(cycle, "shutdown")...)
		assert.NoError(t, s.Destroy(), "the runtime is still up")
	})
	t.Run("kernel launches onto its stream and synchronizes", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = runInKernel(t, m, s, func() error {
				if err := m.MustFunction("reliability_noop").Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(0)); err != nil {
					return err
				}
				return s.Synchronize()
			})
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, append(cycle, "stream synchronize")...)
		assert.NoError(t, s.Synchronize())
		assert.NoError(t, s.Destroy())
	})
	t.Run("kernel fills its own queue", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		launched := 0
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = runInKernel(t, m, s, func() error {
				for i := 0; i < 2*stream.QueueSize; i++ {
					if err := m.MustFunction("reliability_noop").Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(0)); err != nil {
						return err
					}
					launched++
				}
				return nil
			})
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, "full", "would wait")
		assert.Less(t, launched, stream.QueueSize)
		assert.NoError(t, s.Synchronize(), "the launches that fitted ran")
		assert.NoError(t, s.Destroy())
	})
	t.Run("kernel shuts down", func(t *testing.T) {
		s := f.stream(f.dev)
		var got error
		require.NoError(t, reliability.Guard(t, 10*time.Second, func() error {
			got = runInKernel(t, m, s, gpu.Shutdown)
			return nil
		}))
		wantErr(t, got, gpu.ErrNotPermitted, append(cycle, "shutdown")...)
		assert.NoError(t, s.Destroy())
	})
	t.Run("not a cycle", func(t *testing.T) {
		// A host function that waits for another stream, and a goroutine
		// that waits for a slow host function, still wait.
		s, other := f.stream(f.dev), f.stream(f.dev)
		require.NoError(t, f.fn["reliability_spin"].Launch(other, gpu.D1(1), gpu.D1(1), 0, newHost[int32](t, f.dev, 1), int32(5)))
		var got error
		require.NoError(t, s.LaunchHostFunc(func() error {
			got = other.Synchronize()
			time.Sleep(5 * time.Millisecond)
			return nil
		}))
		require.NoError(t, reliability.Guard(t, 10*time.Second, s.Synchronize))
		assert.NoError(t, got)
		assert.NoError(t, s.Destroy())
		assert.NoError(t, other.Destroy())
	})
	f.healthy()
}
