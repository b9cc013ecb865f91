package hostref

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each registry gives back what was stored once, and ids never collide
// across callbacks and native calls, even registered concurrently.
func TestRegistries(t *testing.T) {
	errCB := errors.New("callback ran")
	var (
		mu  sync.Mutex
		ids = map[uint64]bool{}
		wg  sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			c := RegisterCallback(func() error { return errCB })
			n := RegisterNative(func(uintptr) error { return nil })
			mu.Lock()
			defer mu.Unlock()
			assert.False(t, ids[c] || ids[n], "id reused")
			ids[c], ids[n] = true, true
		})
	}
	wg.Wait()
	assert.Len(t, ids, 16)

	id := RegisterCallback(func() error { return errCB })
	f, ok := TakeCallback(id)
	require.True(t, ok)
	assert.ErrorIs(t, f(), errCB)
	_, ok = TakeCallback(id)
	assert.False(t, ok, "a callback is taken once")

	b := []byte{1, 2, 3}
	before := PinnedHostBuffers()
	p := PinHost(b)
	got, ok := HostBuffer(p)
	require.True(t, ok)
	assert.Equal(t, b, got)
	assert.Equal(t, before+1, PinnedHostBuffers())
	UnpinHost(p)
	UnpinHost(p) // idempotent
	_, ok = HostBuffer(p)
	assert.False(t, ok)
	assert.Equal(t, before, PinnedHostBuffers())
}

// A callback with a failure hook runs either the callback or the hook,
// once: the hook with the discard's error, never when the callback ran or
// the discard gave no error.
func TestCallbackOr(t *testing.T) {
	errDrop := errors.New("dropped")
	var ran, hooked []error
	reg := func() uint64 {
		return RegisterCallbackOr(func() error { ran = append(ran, nil); return nil }, func(err error) { hooked = append(hooked, err) })
	}
	base := PendingCallbacks()

	id := reg()
	assert.Equal(t, base+1, PendingCallbacks())
	f, ok := TakeCallback(id)
	require.True(t, ok)
	assert.Equal(t, base+1, PendingCallbacks(), "taken, not run: its hook waits")
	require.NoError(t, f())
	FailCallback(id, errDrop)
	assert.Len(t, ran, 1)
	assert.Empty(t, hooked, "a hook after the callback ran")

	id = reg()
	DiscardCallback(id, errDrop)
	DiscardCallback(id, errDrop)
	assert.Equal(t, []error{errDrop}, hooked, "the hook, once")
	_, ok = TakeCallback(id)
	assert.False(t, ok)

	id = reg()
	DiscardCallback(id, nil)
	assert.Len(t, hooked, 1, "a discard without an error drops the hook")
	assert.Equal(t, base, PendingCallbacks())
}
