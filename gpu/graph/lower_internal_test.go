package graph

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr/spi"
)

// fakeRecorder records chains whose launches are counted, and says when
// each recording is closed.
type fakeRecorder struct {
	mu      sync.Mutex
	fail    bool
	chains  []*fakeChain
	lengths []int
	last    []spi.ChainKernel
}

type fakeChain struct {
	mu       sync.Mutex
	launches int
	closed   bool
	late     bool // launched after Close
}

func (r *fakeRecorder) RecordChain(ks []spi.ChainKernel) (spi.Chain, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return nil, errors.New("refused")
	}
	c := &fakeChain{}
	r.chains = append(r.chains, c)
	r.lengths = append(r.lengths, len(ks))
	r.last = ks
	return c, nil
}

func (c *fakeChain) Launch(uintptr) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.launches++
	c.late = c.late || c.closed
	return nil
}

func (c *fakeChain) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *fakeChain) state() (int, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.launches, c.closed, c.late
}

func withRecorder(t *testing.T, r *fakeRecorder) {
	old := recorderOf
	recorderOf = func(*gpu.Device) (spi.ChainRecorder, bool) { return r, true }
	t.Cleanup(func() { recorderOf = old })
}

// A kernels-only graph is recorded once; each launch replays the
// recording in stream order; a recording is closed only after the last
// launch queued before Destroy or SetKernelParams ran; graphs with other
// nodes, a refusing driver and HIPGO_CUDA_GRAPHS=0 replay packets.
func TestLoweredLifetime(t *testing.T) {
	rec := &fakeRecorder{}
	withRecorder(t, rec)
	dev, err := gpu.Default()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.Shutdown() })
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	x, err := buffer.FromSlice(dev, make([]float32, 256))
	require.NoError(t, err)
	defer x.Free()
	k := Kernel{Func: ks.Saxpy, Grid: gpu.D1(256), Block: gpu.D1(256), Args: []any{float32(1), x, x, int32(256)}}

	g := New()
	a, err := g.AddKernel(k)
	require.NoError(t, err)
	_, err = g.AddKernel(k, a)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.True(t, Lowered(e))
	require.Equal(t, []int{2}, rec.lengths)

	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	hold := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { <-hold; return nil }))
	require.NoError(t, e.Launch(s))
	require.NoError(t, e.Launch(s))
	// Updating while two launches wait: a new recording; the old one
	// stays open for them.
	require.NoError(t, e.SetKernelParams(a, k))
	require.Len(t, rec.chains, 2)
	n, closed, _ := rec.chains[0].state()
	assert.Equal(t, 0, n)
	assert.False(t, closed, "closed before its queued launches ran")
	require.NoError(t, e.Launch(s))
	require.NoError(t, e.Destroy())
	_, closed, _ = rec.chains[1].state()
	assert.False(t, closed)
	close(hold)
	require.NoError(t, s.Synchronize())
	for i, want := range []int{2, 1} {
		n, closed, late := rec.chains[i].state()
		assert.Equal(t, want, n, "recording %d", i)
		assert.True(t, closed, "recording %d", i)
		assert.False(t, late, "recording %d launched after Close", i)
	}
	assert.Error(t, e.Launch(s), "destroyed")

	// A copy node keeps the graph on packets.
	g2 := New()
	_, err = g2.AddKernel(k)
	require.NoError(t, err)
	_, err = g2.AddCopy(x, 0, x, 128, 16)
	require.NoError(t, err)
	e2, err := g2.Instantiate(dev)
	require.NoError(t, err)
	assert.False(t, Lowered(e2))
	require.NoError(t, e2.Destroy())

	rec.fail = true
	e3, err := g.Instantiate(dev)
	require.NoError(t, err, "a driver that refuses to record leaves packet replay")
	assert.False(t, Lowered(e3))
	require.NoError(t, e3.Launch(s))
	require.NoError(t, s.Synchronize())
	require.NoError(t, e3.Destroy())

	rec.fail = false
	t.Setenv("HIPGO_CUDA_GRAPHS", "0")
	e4, err := g.Instantiate(dev)
	require.NoError(t, err)
	assert.False(t, Lowered(e4))
	require.NoError(t, e4.Destroy())
}

// Kernels between an alloc and a free node are still recorded as one
// chain: the memory nodes add no packet, and the kernel's kernarg image
// holds the alloc node's fixed address.
func TestLoweredMemNodes(t *testing.T) {
	rec := &fakeRecorder{}
	withRecorder(t, rec)
	dev, err := gpu.Default()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.Shutdown() })
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	x, err := buffer.FromSlice(dev, make([]float32, 256))
	require.NoError(t, err)
	defer x.Free()
	g := New()
	a, tmp, err := AddMemAlloc[float32](g, dev, 256)
	require.NoError(t, err)
	k, err := g.AddKernel(Kernel{Func: ks.Saxpy, Grid: gpu.D1(256), Block: gpu.D1(256), Args: []any{float32(1), x, tmp, int32(256)}}, a)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp, k)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	require.True(t, Lowered(e))
	require.Equal(t, []int{1}, rec.lengths)
	ka := rec.last[0].Kernarg
	require.GreaterOrEqual(t, len(ka), 24)
	assert.Equal(t, uint64(tmp.Ptr()), binary.LittleEndian.Uint64(ka[16:24]), "y is the alloc node's address")
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	for i := 0; i < 3; i++ {
		require.NoError(t, e.Launch(s))
	}
	require.NoError(t, e.Destroy())
	require.NoError(t, s.Synchronize())
	n, closed, late := rec.chains[0].state()
	assert.Equal(t, 3, n)
	assert.True(t, closed)
	assert.False(t, late)
	assert.Error(t, tmp.Free(), "released with its graph")
}

// Update of a recorded graph records the new parameters as a new chain
// (a CUDA graph on cuda); the old chain stays open for the launches
// queued before it, and a refused update records nothing.
func TestLoweredUpdate(t *testing.T) {
	rec := &fakeRecorder{}
	withRecorder(t, rec)
	dev, err := gpu.Default()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.Shutdown() })
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	x, err := buffer.FromSlice(dev, make([]float32, 256))
	require.NoError(t, err)
	defer x.Free()
	build := func(alpha float32) *Graph {
		g := New()
		_, err := g.AddKernel(Kernel{Func: ks.Saxpy, Grid: gpu.D1(256), Block: gpu.D1(256), Args: []any{alpha, x, x, int32(256)}})
		require.NoError(t, err)
		return g
	}
	e, err := build(1).Instantiate(dev)
	require.NoError(t, err)
	require.Len(t, rec.chains, 1)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	hold := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { <-hold; return nil }))
	require.NoError(t, e.Launch(s))
	r, _, err := e.Update(build(2))
	require.NoError(t, err)
	require.Equal(t, UpdateSuccess, r)
	require.Len(t, rec.chains, 2, "recorded again")
	_, closed, _ := rec.chains[0].state()
	assert.False(t, closed, "the old chain waits for its queued launch")
	assert.Equal(t, float32(2), float32frombits(rec.last[0].Kernarg[:4]), "the new chain has the new alpha")
	empty := New()
	_, _, err = e.Update(empty)
	assert.Equal(t, gpu.ErrGraphExecUpdateFailure, gpu.CodeOf(err))
	assert.Len(t, rec.chains, 2, "a refused update records nothing")
	close(hold)
	require.NoError(t, s.Synchronize())
	n, closed, late := rec.chains[0].state()
	assert.Equal(t, 1, n)
	assert.True(t, closed)
	assert.False(t, late)
	require.NoError(t, e.Destroy())
}

func float32frombits(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

// Kernels around an event node are not recorded as one driver chain: the
// launch replays packets around the stream's own record, and an Update or
// an exec setter keeps it so.
func TestEventNodesNotLowered(t *testing.T) {
	rec := &fakeRecorder{}
	withRecorder(t, rec)
	dev, err := gpu.Default()
	require.NoError(t, err)
	t.Cleanup(func() { _ = gpu.Shutdown() })
	ks, err := kernels.Load(dev)
	require.NoError(t, err)
	x, err := buffer.FromSlice(dev, make([]float32, 256))
	require.NoError(t, err)
	defer x.Free()
	ev, err := stream.NewEvent(dev, stream.EventDefault)
	require.NoError(t, err)
	defer ev.Destroy()
	k := Kernel{Func: ks.Saxpy, Grid: gpu.D1(256), Block: gpu.D1(256), Args: []any{float32(1), x, x, int32(256)}}
	build := func() (*Graph, *Node) {
		g := New()
		a, err := g.AddKernel(k)
		require.NoError(t, err)
		r, err := g.AddEventRecord(ev, a)
		require.NoError(t, err)
		_, err = g.AddKernel(k, r)
		require.NoError(t, err)
		return g, r
	}
	g, r := build()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	assert.False(t, Lowered(e))
	g2, _ := build()
	res, _, err := e.Update(g2)
	require.NoError(t, err)
	assert.Equal(t, UpdateSuccess, res)
	require.NoError(t, e.SetRecordedEvent(r, ev))
	assert.False(t, Lowered(e))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, e.Launch(s))
	require.NoError(t, ev.Synchronize())
	require.NoError(t, s.Synchronize())
	assert.Empty(t, rec.chains, "nothing recorded")
}
