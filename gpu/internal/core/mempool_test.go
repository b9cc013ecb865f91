package core

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

var int32Type = reflect.TypeFor[int32]()

func newPool(t *testing.T, dev *gpu.Device) *MemPool {
	t.Helper()
	p, err := NewMemPool(dev, new(byte))
	require.NoError(t, err)
	return p
}

func allocAsync(t *testing.T, p *MemPool, s *Stream, n int) *Mem {
	t.Helper()
	m := new(Mem)
	require.NoError(t, p.AllocAsync(m, s, int32Type, n))
	return m
}

func TestSizeClass(t *testing.T) {
	for _, c := range []struct{ n, want uint64 }{
		{1, 256}, {256, 256}, {257, 512}, {4096, 4096}, {4097, 8192},
		{2 << 20, 2 << 20}, {2<<20 + 1, 4 << 20}, {5 << 20, 6 << 20},
	} {
		assert.Equal(t, c.want, sizeClass(c.n), "sizeClass(%d)", c.n)
	}
}

// Memory freed on a stream is reused at once by the stream's next
// allocation of its class, even while the work that used it runs; the
// new buffer keeps that work as its last writer, so another stream that
// uses it waits.
func TestPoolReuseOnStream(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	p := newPool(t, dev)
	x := allocAsync(t, p, s, 100)
	assert.Equal(t, PoolStats{Used: 512, UsedHigh: 512, Reserved: 512, ReservedHigh: 512}, p.Stats())
	g := newGate(t)
	gated(t, s, g, func() {}, MemUse{x, Write})
	require.NoError(t, FreeAsync(x, s))
	assert.ErrorIs(t, FreeAsync(x, s), gpu.ErrInvalidValue, "a second free")
	y := allocAsync(t, p, s, 128) // the same class
	assert.Equal(t, x.Addr(), y.Addr(), "reused on its stream")
	assert.Equal(t, uint64(512), p.Stats().Reserved)
	f := fenceOn(t, other, "reader")
	assert.Equal(t, []string{"host op"}, use(t, y, other, f, Read), "another stream waits for the free's work")
	f.Cancel() // the reader's packet, never submitted
	g.open()
	require.NoError(t, FreeAsync(y, s))
	require.NoError(t, s.Synchronize())
}

// Another stream gets a block only once its free completed
// (AllowOpportunistic) or when it waited for an event after the free
// (FollowEventDependencies).
func TestPoolFreeAfterWork(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	p := newPool(t, dev)
	x := allocAsync(t, p, s, 64)
	addr := x.Addr()
	g := newGate(t)
	gated(t, s, g, func() {}, MemUse{x, Write})
	require.NoError(t, FreeAsync(x, s))
	y := allocAsync(t, p, other, 64)
	assert.NotEqual(t, addr, y.Addr(), "a block whose free is pending went to another stream")

	p.SetReuse(ReuseFollowEventDependencies)
	ev, err := s.Record("event record", false)
	require.NoError(t, err)
	require.NoError(t, other.WaitFences("wait event", []*Fence{ev}))
	z := allocAsync(t, p, other, 64)
	assert.Equal(t, addr, z.Addr(), "a stream that waited for the free reuses it")
	g.open()
	require.NoError(t, FreeAsync(y, other))
	require.NoError(t, FreeAsync(z, other))
	require.NoError(t, other.Synchronize())
	require.NoError(t, s.Synchronize())

	p.SetReuse(ReuseAllowOpportunistic)
	third := newStream(t, dev, 16)
	w := allocAsync(t, p, third, 64)
	assert.Contains(t, []uintptr{addr, y.Addr()}, w.Addr(), "a completed free is anyone's")
	require.NoError(t, w.Free())
}

// A free on a stream that uses memory another stream's work still uses
// waits for that work with a barrier.
func TestPoolFreeWaitsForOtherStreams(t *testing.T) {
	dev := device(t)
	s, other := newStream(t, dev, 16), newStream(t, dev, 16)
	p := newPool(t, dev)
	x := allocAsync(t, p, s, 64)
	g := newGate(t)
	gated(t, other, g, func() {}, MemUse{x, Read})
	before := s.Queue().LoadWriteIndex()
	require.NoError(t, FreeAsync(x, s))
	assert.Equal(t, before+1, s.Queue().LoadWriteIndex(), "a barrier for the other stream's reader")
	p.mu.Lock()
	b := p.small[0][0]
	p.mu.Unlock()
	require.NotNil(t, b.fence)
	assert.False(t, b.fence.Done(), "the free completes after the reader")
	g.open()
	require.NoError(t, b.fence.Wait(0))
}

// Trim returns completed free blocks, not pending ones; Synchronize trims
// to the release threshold.
func TestPoolTrim(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	p := newPool(t, dev)
	a, b := allocAsync(t, p, s, 64), allocAsync(t, p, s, 1024)
	g := newGate(t)
	gated(t, s, g, func() {}, MemUse{a, Write})
	require.NoError(t, FreeAsync(a, s))
	require.NoError(t, FreeAsync(b, s))
	assert.Equal(t, uint64(256+4096), p.Stats().Reserved)
	assert.Zero(t, p.Stats().Used)
	p.Trim(0)
	assert.Equal(t, uint64(256+4096), p.Stats().Reserved, "pending frees stay")
	g.open()
	require.NoError(t, s.Synchronize())
	p.SetReleaseThreshold(4096)
	require.NoError(t, p.Synchronize())
	assert.LessOrEqual(t, p.Stats().Reserved, uint64(4096))
	p.Trim(0)
	assert.Zero(t, p.Stats().Reserved)
	assert.Equal(t, uint64(256+4096), p.Stats().ReservedHigh)
}

// A stream that cannot take work frees nothing.
func TestPoolFreeOnDestroyedStream(t *testing.T) {
	dev := device(t)
	s, dead := newStream(t, dev, 16), newStream(t, dev, 16)
	p := newPool(t, dev)
	x := allocAsync(t, p, s, 64)
	require.NoError(t, dead.Destroy())
	err := FreeAsync(x, dead)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "not freed")
	assert.True(t, x.Live())
	require.NoError(t, FreeAsync(x, s))
}
