package buffer_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/kernels"
)

// A buffer, host buffer or managed buffer dropped unfreed, with work
// queued on it, is released by the backstop after that work: the counter
// moves and the memory returns to the pool.
func TestBackstopReleasesDroppedMemory(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	for name, alloc := range map[string]func(t *testing.T){
		"buffer": func(t *testing.T) {
			x, err := buffer.New[float32](dev, 1<<16)
			require.NoError(t, err)
			require.NoError(t, kernels.FillF32(s, x, 1, x.Len()))
			for range 20 {
				require.NoError(t, kernels.Saxpy(s, 1, x, x, x.Len())) // queued when x is dropped
			}
		},
		"host": func(t *testing.T) {
			_, err := buffer.NewHost[int32](dev, 64)
			require.NoError(t, err)
		},
		"managed": func(t *testing.T) {
			_, err := buffer.NewManaged[int64](dev, 64)
			require.NoError(t, err)
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, s.Synchronize())
			gputest.Collect(func() bool { return false }) // what earlier tests dropped
			before, allocs := core.Backstops(), rocrhook.LiveAllocations()
			alloc(t)
			require.Equal(t, allocs+1, rocrhook.LiveAllocations())
			ok := gputest.Collect(func() bool { return core.Backstops() > before && rocrhook.LiveAllocations() == allocs })
			require.True(t, ok, "the dropped %s was not released: %d backstops, %d allocations (want %d)", name, core.Backstops()-before, rocrhook.LiveAllocations(), allocs)
			assert.Equal(t, before+1, core.Backstops())
			require.NoError(t, s.Synchronize(), "the work queued on the dropped memory ran")
		})
	}
}

// Memory freed explicitly is not released again by the backstop.
func TestBackstopSkipsFreedMemory(t *testing.T) {
	dev := cputest.Device(t)
	before, allocs := core.Backstops(), rocrhook.LiveAllocations()
	func() {
		x, err := buffer.New[float32](dev, 256)
		require.NoError(t, err)
		h, err := buffer.NewHost[float32](dev, 256)
		require.NoError(t, err)
		require.NoError(t, x.Free())
		require.NoError(t, h.Free())
	}()
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "an explicit Free left a backstop armed")
	assert.Equal(t, allocs, rocrhook.LiveAllocations())
	// The freed memory's reuse by a new buffer is not freed under it.
	y, err := buffer.New[float32](dev, 256)
	require.NoError(t, err)
	gputest.Collect(func() bool { return false })
	require.NoError(t, y.Fill(2))
	got, err := y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, float32(2), got[255])
	require.NoError(t, y.Free())
	assert.Equal(t, before, core.Backstops())
}

// A buffer dropped after Shutdown released it is not freed twice.
func TestBackstopAfterShutdown(t *testing.T) {
	dev := cputest.Device(t)
	before := core.Backstops()
	func() {
		_, err := buffer.New[float32](dev, 256)
		require.NoError(t, err)
	}()
	require.NoError(t, gpu.Shutdown())
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() > before }))
	assert.Zero(t, rocrhook.LiveAllocations())
}

// Graph memory, which its graph owns, is not released by a backstop
// when its buffer is dropped.
func TestBackstopSkipsGraphMemory(t *testing.T) {
	dev := cputest.Device(t)
	g := graph.New()
	func() {
		_, _, err := graph.AddMemAlloc[float32](g, dev, 64) // the buffer dropped, the graph kept
		require.NoError(t, err)
	}()
	before, allocs := core.Backstops(), rocrhook.LiveAllocations()
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "graph memory was released by a backstop")
	assert.Equal(t, allocs, rocrhook.LiveAllocations())
	require.NoError(t, g.Destroy())
}

// Buffers dropped while others are freed explicitly and the runtime
// shuts down: every allocation is released once, none twice, and
// nothing races.
func TestBackstopRacesShutdownAndFree(t *testing.T) {
	dev := cputest.Device(t)
	gputest.Collect(func() bool { return false })
	const n = 16
	kept := make([]*buffer.Buffer[float32], n)
	for i := range kept {
		var err error
		kept[i], err = buffer.New[float32](dev, 256)
		require.NoError(t, err)
	}
	before := core.Backstops()
	func() {
		for range n {
			_, err := buffer.New[float32](dev, 256)
			require.NoError(t, err)
		}
	}()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); gputest.Collect(func() bool { return core.Backstops() >= before+n }) }()
	go func() {
		defer wg.Done()
		for _, x := range kept {
			assert.NoError(t, x.Free())
		}
	}()
	go func() { defer wg.Done(); assert.NoError(t, gpu.Shutdown()) }()
	wg.Wait()
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() >= before+n }))
	assert.Equal(t, before+n, core.Backstops(), "a freed buffer was released again")
	assert.Zero(t, rocrhook.LiveAllocations())
}

// Pool memory dropped unfreed, with work queued on it, returns to its
// pool after that work, and is counted; the pool hands it out again.
func TestBackstopReturnsDroppedPoolMemory(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	p, err := buffer.NewMemPool(dev)
	require.NoError(t, err)
	gputest.Collect(func() bool { return false })
	before := core.Backstops()
	gate := make(chan struct{})
	func() {
		require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
		x, err := buffer.NewFromPoolAsync[float32](p, s, 1024)
		require.NoError(t, err)
		require.NoError(t, kernels.FillF32(s, x, 1, x.Len())) // queued when x is dropped
	}()
	used := p.Stats().Used
	require.NotZero(t, used)
	for range 10 {
		runtime.GC()
		runtime.Gosched()
	}
	assert.Equal(t, before, core.Backstops(), "the dropped pool memory was released under its queued work")
	assert.Equal(t, used, p.Stats().Used)
	close(gate)
	ok := gputest.Collect(func() bool { return core.Backstops() > before })
	require.True(t, ok, "the dropped pool memory was not released")
	assert.Equal(t, before+1, core.Backstops())
	st := p.Stats()
	assert.Zero(t, st.Used, "the dropped memory did not return to its pool")
	y, err := buffer.NewFromPoolAsync[float32](p, s, 1024)
	require.NoError(t, err)
	assert.Equal(t, st.Reserved, p.Stats().Reserved, "the pool did not hand the returned block out again")
	require.NoError(t, y.FreeAsync(s))
	require.NoError(t, s.Synchronize())
}

// Pool memory freed with FreeAsync or Free is not released again by the
// backstop.
func TestBackstopSkipsFreedPoolMemory(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	gputest.Collect(func() bool { return false })
	before := core.Backstops()
	func() {
		x, err := buffer.NewAsync[float32](s, 256)
		require.NoError(t, err)
		y, err := buffer.NewAsync[float32](s, 256)
		require.NoError(t, err)
		require.NoError(t, x.FreeAsync(s))
		require.NoError(t, y.Free())
	}()
	require.NoError(t, s.Synchronize())
	gputest.Collect(func() bool { return false })
	assert.Equal(t, before, core.Backstops(), "a free left the backstop armed")
}

// Pool memory dropped while other pool memory is freed on its stream and
// the runtime shuts down: each dropped buffer is released once, none
// twice, and nothing races.
func TestBackstopPoolRacesShutdownAndFreeAsync(t *testing.T) {
	dev := cputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer runtime.KeepAlive(s) // undestroyed: its own backstop would count
	gputest.Collect(func() bool { return false })
	const n = 16
	kept := make([]*buffer.Buffer[float32], n)
	for i := range kept {
		kept[i], err = buffer.NewAsync[float32](s, 256)
		require.NoError(t, err)
	}
	defer runtime.KeepAlive(kept) // those FreeAsync refused after Shutdown stay unfreed
	before := core.Backstops()
	func() {
		for range n {
			x, err := buffer.NewAsync[float32](s, 256)
			require.NoError(t, err)
			require.NoError(t, kernels.FillF32(s, x, 1, x.Len()))
		}
	}()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); gputest.Collect(func() bool { return core.Backstops() >= before+n }) }()
	go func() {
		defer wg.Done()
		for _, x := range kept {
			_ = x.FreeAsync(s) // fails once Shutdown ran: the runtime frees it then
		}
	}()
	go func() { defer wg.Done(); assert.NoError(t, gpu.Shutdown()) }()
	wg.Wait()
	assert.True(t, gputest.Collect(func() bool { return core.Backstops() >= before+n }))
	assert.Equal(t, before+n, core.Backstops(), "pool memory was released twice")
}
