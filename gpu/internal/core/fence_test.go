package core

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/rocr"
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
// its size; a full cache gives its oldest batch to the shared pool in one
// move, an empty one takes a batch from it, and a Flush returns the rest.
func TestFenceCache(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	emptyPool(t)
	var c FenceCache
	var fs []*Fence
	for range len(c.free) + 1 {
		f, err := c.New(s.Queue())
		require.NoError(t, err)
		require.Equal(t, int64(1), f.Signal().Load(hsa.Relaxed), "armed for its packet")
		f.Cancel()
		fs = append(fs, f)
	}
	for i, f := range fs {
		for _, g := range fs[:i] {
			require.NotSame(t, g, f, "a fence handed out twice")
		}
	}
	fs[0].Retain()
	c.Release(fs[0])
	assert.Zero(t, c.n, "a fence still held stays out of the cache")
	for _, f := range fs {
		c.Release(f)
	}
	assert.Equal(t, fenceBatch+1, c.n, "the full cache gave its oldest batch to the pool")
	assert.Same(t, fs[fenceBatch], c.free[0], "the newest batch stays")
	assert.Same(t, fs[len(fs)-1], c.free[c.n-1])
	for _, f := range c.free[:c.n] {
		assert.Equal(t, int64(1), f.Signal().Load(hsa.Relaxed), "re-armed")
	}
	f, err := c.New(s.Queue())
	require.NoError(t, err)
	assert.Same(t, fs[len(fs)-1], f, "the last cached is the next")
	c.Release(f)

	// An empty cache takes the pool's newest batch, armed.
	var other FenceCache
	g, err := other.New(s.Queue())
	require.NoError(t, err)
	assert.Same(t, fs[fenceBatch-1], g, "the pool's last fence first")
	assert.Equal(t, fenceBatch-1, other.n, "a batch from the pool")
	for _, h := range other.free[:other.n] {
		assert.Equal(t, int64(1), h.Signal().Load(hsa.Relaxed), "armed in the batch")
	}
	g.Cancel()
	other.Release(g)
	other.Flush()
	c.Flush()
	assert.Zero(t, c.n)
	assert.Zero(t, other.n)
}

// emptyPool sets the shared pool's soft fences aside until t ends, so a
// test sees only the fences it releases there.
func emptyPool(t *testing.T) {
	fences.mu.Lock()
	kept := fences.free[nil]
	delete(fences.free, nil)
	fences.mu.Unlock()
	t.Cleanup(func() {
		fences.mu.Lock()
		if fences.free == nil {
			fences.free = map[*rocr.Agent][]*Fence{}
		}
		fences.free[nil] = append(kept, fences.free[nil]...)
		fences.mu.Unlock()
	})
}

// A cache keeps only fences of the signal kind it serves: another kind's
// fence, released through it (a dependency on another agent's stream),
// goes back to the pool under its own kind.
func TestFenceCacheKeepsItsKind(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	var c FenceCache
	f, err := c.New(s.Queue())
	require.NoError(t, err)
	f.Cancel()
	c.Release(f)
	n := c.n
	foreign := &Fence{sig: f.sig, kind: dev.Agent()} // stands for a rocm signal
	foreign.refs.Store(1)
	c.Release(foreign)
	assert.Equal(t, n, c.n, "the other kind's fence is not cached")
	fences.mu.Lock()
	l := fences.free[dev.Agent()]
	delete(fences.free, dev.Agent())
	fences.mu.Unlock()
	require.Len(t, l, 1)
	assert.Same(t, foreign, l[0], "pooled under its own kind")
	c.Flush()
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
