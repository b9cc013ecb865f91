package core

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// A recorded fence is pending while the work before it is, and completes
// with it; a bounded wait for a pending fence is ErrNotReady.
func TestFenceCompletes(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	g := newGate(t)
	gated(t, s, g, func() {})
	f, err := s.Record("event record", false)
	require.NoError(t, err)
	defer f.Release()
	assert.False(t, f.Done())
	assert.False(t, f.Query())
	assert.ErrorIs(t, f.WaitHint(1, hsa.WaitActive), gpu.ErrNotReady)
	g.open()
	require.NoError(t, f.Wait(0))
	assert.True(t, f.Done())
	assert.NoError(t, f.Err())
}

// A fence held by its caller is not handed out again while streams churn
// through thousands of pooled fences; once released it is the pool's.
func TestFenceOutlivesChurn(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	g := newGate(t)
	gated(t, s, g, func() {})
	pending, err := s.Record("event record", false)
	require.NoError(t, err)
	done, err := other.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, done.Wait(0))
	for range 2000 {
		require.NoError(t, hostOp(other, func() error { return nil }))
		other.mu.Lock()
		tail := other.tail
		other.mu.Unlock()
		require.NotSame(t, pending, tail)
		require.NotSame(t, done, tail)
	}
	require.NoError(t, other.Synchronize())
	assert.False(t, pending.Done(), "the pending fence was re-armed or completed by another packet")
	assert.True(t, done.Done(), "the completed fence was re-armed")
	g.open()
	require.NoError(t, pending.Wait(0))
	pending.Release()
	done.Release()
	f, err := NewFence(other.Queue())
	require.NoError(t, err)
	assert.Same(t, done, f, "the last fence released is the pool's next")
	assert.Equal(t, int64(1), f.Signal().Load(hsa.Relaxed), "armed for its packet")
	f.Cancel()
	f.Release()
}

// A stream's cache keeps the fences its packets release, re-armed, up to
// its size; the rest and a Flush go to the shared pool.
func TestFenceCache(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	var c FenceCache
	var fs []*Fence
	for range len(c.free) + 1 {
		f, err := c.New(s.Queue())
		require.NoError(t, err)
		f.Cancel()
		fs = append(fs, f)
	}
	fs[0].Retain()
	c.Release(fs[0])
	assert.Zero(t, c.n, "a fence still held stays out of the cache")
	for _, f := range fs {
		c.Release(f)
	}
	assert.Equal(t, len(c.free), c.n)
	assert.Equal(t, int64(1), c.free[0].Signal().Load(hsa.Relaxed), "re-armed")
	f, err := c.New(s.Queue())
	require.NoError(t, err)
	assert.Same(t, fs[len(fs)-2], f, "the last cached is the next")
	c.Release(f)
	c.Flush()
	assert.Zero(t, c.n)
}

// A wait with a context gives up when it ends, leaving the work pending;
// one that can never end waits.
func TestFenceWaitContext(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	g := newGate(t)
	gated(t, s, g, func() {})
	f, err := s.Record("event record", false)
	require.NoError(t, err)
	defer f.Release()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = WaitContext(ctx, "event synchronize", f, hsa.WaitActive)
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.ErrorIs(t, err, context.Canceled)
	err = s.SynchronizeContext(ctx)
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, f.Done())
	go g.open()
	require.NoError(t, WaitContext(context.Background(), "event synchronize", f, hsa.WaitActive))
	assert.True(t, f.Done())
	require.NoError(t, s.SynchronizeContext(ctx), "a context that ended does not fail a wait for work that completed")
}
