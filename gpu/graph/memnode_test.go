package graph_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
)

func poolUsed(t testing.TB, dev *gpu.Device) uint64 {
	t.Helper()
	p, err := buffer.DefaultMemPool(dev)
	require.NoError(t, err)
	return p.Stats().Used
}

// memGraph is alloc → fill 2 → saxpy 3·x → copy into out → free, and
// acc += tmp after the copy: each launch adds 5 to acc.
func memGraph(t testing.TB, dev *gpu.Device, ks *kernels.Set, x, acc, out *buffer.Buffer[float32]) (*graph.Graph, *graph.Node, *buffer.Buffer[float32]) {
	t.Helper()
	g := graph.New()
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	fill, err := graph.AddFill(g, tmp, float32(2), a)
	require.NoError(t, err)
	k, err := g.AddKernel(saxpy(ks, 3, x, tmp), fill)
	require.NoError(t, err)
	cp, err := g.AddCopy(out, 0, tmp, 0, n, k)
	require.NoError(t, err)
	add, err := g.AddKernel(saxpy(ks, 1, tmp, acc), k)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp, cp, add)
	require.NoError(t, err)
	return g, a, tmp
}

// An alloc → fill → kernel → copy → free graph gives the same results at
// every replay, at the same address, with no allocation from the pool
// per launch.
func TestMemNodeReplay(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	acc := newBuf(t, dev, 0)
	out := newBuf(t, dev, 0)
	base := poolUsed(t, dev)
	g, a, tmp := memGraph(t, dev, ks, x, acc, out)
	assert.Equal(t, "mem alloc", a.Kind())
	prm, err := a.MemParams()
	require.NoError(t, err)
	assert.Equal(t, uintptr(tmp.Ptr()), prm.Ptr)
	assert.Equal(t, n*4, prm.Bytes)
	assert.Equal(t, dev, prm.Device)
	assert.Greater(t, poolUsed(t, dev), base, "the node's memory comes from the pool")

	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	s := newStream(t, dev)
	used := poolUsed(t, dev)
	for r := 1; r <= 50; r++ {
		require.NoError(t, e.Launch(s))
		if r%10 == 0 {
			require.NoError(t, s.Synchronize())
			got := read(t, acc)
			assert.InDelta(t, 5.0*float64(r), float64(got[0]), 1e-3, "launch %d", r)
			assert.InDelta(t, 5.0*float64(r), float64(got[n-1]), 1e-3, "launch %d", r)
			assert.InDelta(t, 5.0, float64(read(t, out)[n/2]), 1e-6)
			assert.Equal(t, prm.Ptr, uintptr(tmp.Ptr()), "the address is fixed")
			assert.Equal(t, used, poolUsed(t, dev), "no allocation per launch")
		}
	}
	require.NoError(t, e.Destroy())
	require.NoError(t, s.Synchronize())
	assert.Equal(t, base, poolUsed(t, dev), "destroying the graph and its executable graph returns the memory")
	err = tmp.Free()
	assert.ErrorContains(t, err, "freed")
}

// Launches of one executable graph on several streams share its memory
// and are ordered by it, so each gets its own whole run.
func TestMemNodeLaunchesOnStreams(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	acc := newBuf(t, dev, 0)
	out := newBuf(t, dev, 0)
	g, _, _ := memGraph(t, dev, ks, x, acc, out)
	defer g.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		s := newStream(t, dev)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 10; r++ {
				assert.NoError(t, e.Launch(s))
			}
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Wait()
	require.NoError(t, dev.Synchronize())
	assert.InDelta(t, 200.0, float64(read(t, acc)[n-1]), 1e-3)
}

// Uses of graph memory that the edges do not order inside its allocation
// are refused at Instantiate, naming the nodes.
func TestMemNodeOrderErrors(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)

	t.Run("use before alloc", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		other, err := g.AddEmpty()
		require.NoError(t, err)
		a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		_, err = g.AddKernel(saxpy(ks, 1, x, tmp), other) // not after a
		require.NoError(t, err)
		_, err = g.AddMemFree(tmp, a)
		require.NoError(t, err)
		_, err = g.Instantiate(dev)
		require.Error(t, err)
		assert.Equal(t, gpu.ErrInvalidValue, codeOf(err))
		assert.ErrorContains(t, err, "node 2 (kernel) uses")
		assert.ErrorContains(t, err, "before its alloc node 1")
	})
	t.Run("use after free", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		f, err := g.AddMemFree(tmp, a)
		require.NoError(t, err)
		_, err = g.AddCopy(y, 0, tmp, 0, n, f)
		require.NoError(t, err)
		_, err = g.Instantiate(dev)
		assert.ErrorContains(t, err, "node 2 (memcpy) uses")
		assert.ErrorContains(t, err, "after its free node 1")
	})
	t.Run("use unordered with free", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		_, err = graph.AddFill(g, tmp, float32(1), a)
		require.NoError(t, err)
		_, err = g.AddMemFree(tmp, a) // beside the fill, not after it
		require.NoError(t, err)
		_, err = g.Instantiate(dev)
		assert.ErrorContains(t, err, "node 1 (memset) uses")
		assert.ErrorContains(t, err, "after its free node 2")
	})
	t.Run("free before alloc", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		_, err = g.AddMemFree(tmp)
		require.NoError(t, err)
		_, err = g.Instantiate(dev)
		assert.ErrorContains(t, err, "node 1 (mem free) frees")
		assert.ErrorContains(t, err, "not ordered after its alloc node 0")
	})
	t.Run("two frees", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		f, err := g.AddMemFree(tmp, a)
		require.NoError(t, err)
		_, err = g.AddMemFree(tmp, f)
		require.NoError(t, err)
		_, err = g.Instantiate(dev)
		assert.ErrorContains(t, err, "nodes 1 and 2 (mem free) both free")
	})
	t.Run("free of other memory", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, err := g.AddMemFree(y)
		assert.ErrorContains(t, err, "not the buffer of an alloc node")
		_, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
		require.NoError(t, err)
		_, err = g.AddMemFree(tmp.Sub(1, 2))
		assert.ErrorContains(t, err, "not the buffer of an alloc node")
		_, err = g.AddMemFree(nil)
		assert.Error(t, err)
	})
	t.Run("bad alloc", func(t *testing.T) {
		_, _, err := graph.AddMemAlloc[float32](nil, dev, n)
		assert.Error(t, err)
		_, _, err = graph.AddMemAlloc[float32](graph.New(), nil, n)
		assert.Error(t, err)
		_, _, err = graph.AddMemAlloc[float32](graph.New(), dev, -1)
		assert.Error(t, err)
		var nd *graph.Node
		_, err = nd.MemParams()
		assert.Error(t, err)
	})
	// A failed Instantiate returns what it took: the graph's destroy
	// then returns the memory.
	base := poolUsed(t, dev)
	g := graph.New()
	_, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp)
	require.NoError(t, err)
	_, err = g.Instantiate(dev)
	require.Error(t, err)
	require.NoError(t, g.Destroy())
	assert.Equal(t, base, poolUsed(t, dev))
}

// A graph that allocates without freeing leaves its memory allocated
// after a launch, for work after it; it is not launched again before a
// Free, a FreeAsync or another graph's free node ends the allocation.
func TestMemNodeAllocWithoutFree(t *testing.T) {
	dev, _ := setup(t)
	s := newStream(t, dev)
	g := graph.New()
	defer g.Destroy()
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	_, err = graph.AddFill(g, tmp, float32(7), a)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()

	err = tmp.FreeAsync(s)
	assert.ErrorContains(t, err, "no launch left allocated", "nothing launched yet")

	require.NoError(t, e.Launch(s))
	out := make([]float32, n)
	require.NoError(t, stream.CopyToHost(s, out, tmp, 0))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, float32(7), out[n-1])
	err = e.Launch(s)
	assert.ErrorContains(t, err, "before launching again")
	require.NoError(t, tmp.FreeAsync(s))
	assert.ErrorContains(t, tmp.FreeAsync(s), "already freed")
	require.NoError(t, e.Launch(s))
	require.NoError(t, tmp.Free())
	require.NoError(t, e.Launch(s))

	// Another graph's free node ends the allocation.
	g2 := graph.New()
	defer g2.Destroy()
	_, err = g2.AddMemFree(tmp)
	require.NoError(t, err)
	e2, err := g2.Instantiate(dev)
	require.NoError(t, err)
	defer e2.Destroy()
	require.NoError(t, e2.Launch(s))
	err = e2.Launch(s)
	assert.ErrorContains(t, err, "no launch of the graph that allocates it left it allocated")
	require.NoError(t, e.Launch(s))
	require.NoError(t, e2.Launch(s))
	require.NoError(t, s.Synchronize())
}

// NewAsync and FreeAsync on a capturing stream become alloc and free
// nodes: the captured graph replays with its own memory, and a failed
// capture returns the memory it allocated.
func TestCaptureMemAsync(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 1)
	acc := newBuf(t, dev, 0)
	s := newStream(t, dev)
	base := poolUsed(t, dev)

	require.NoError(t, graph.BeginCapture(s))
	tmp, err := buffer.NewAsync[float32](s, n)
	require.NoError(t, err)
	require.NoError(t, stream.Fill(s, tmp, float32(4)))
	require.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 1, x, tmp, n))
	require.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 1, tmp, acc, n))
	require.NoError(t, tmp.FreeAsync(s))
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	require.Equal(t, 5, g.Len())
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	for r := 1; r <= 20; r++ {
		require.NoError(t, e.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 100.0, float64(read(t, acc)[n-1]), 1e-3)
	require.NoError(t, e.Destroy())
	require.NoError(t, s.Synchronize())
	assert.Equal(t, base, poolUsed(t, dev))

	// Freeing memory that no graph allocated cannot be captured; the
	// capture fails and what it allocated goes back.
	y := newBuf(t, dev, 0)
	require.NoError(t, graph.BeginCapture(s))
	tmp, err = buffer.NewAsync[float32](s, n)
	require.NoError(t, err)
	err = y.FreeAsync(s)
	assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(err))
	_, err = graph.EndCapture(s)
	assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
	assert.Equal(t, base, poolUsed(t, dev))
	assert.ErrorContains(t, stream.Fill(s, tmp, float32(1)), "freed")
	assert.Equal(t, float32(0), read(t, y)[0], "y was not freed")

	// A stream destroyed while capturing returns the capture's memory.
	s2, err := stream.New(dev)
	require.NoError(t, err)
	require.NoError(t, graph.BeginCapture(s2))
	_, err = buffer.NewAsync[float32](s2, n)
	require.NoError(t, err)
	assert.Error(t, s2.Destroy())
	assert.Equal(t, base, poolUsed(t, dev))
}

// Launch, Destroy of the executable graph and of the graph, and frees of
// the memory race without harm: each call succeeds or fails cleanly,
// and the memory returns to the pool at the end.
func TestMemNodeRaces(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	acc := newBuf(t, dev, 0)
	out := newBuf(t, dev, 0)
	base := poolUsed(t, dev)
	for round := 0; round < 5; round++ {
		g, _, tmp := memGraph(t, dev, ks, x, acc, out)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for i := 0; i < 3; i++ {
			s := newStream(t, dev)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := 0; r < 20; r++ {
					if err := e.Launch(s); err != nil {
						assert.ErrorContains(t, err, "destroyed")
						return
					}
				}
			}()
		}
		var e2 *graph.Exec
		wg.Add(3)
		go func() { defer wg.Done(); _ = e.Destroy() }()
		go func() { defer wg.Done(); _ = g.Destroy() }()
		go func() { defer wg.Done(); e2, _ = g.Instantiate(dev) }()
		assert.Error(t, tmp.Free(), "no launch leaves the memory allocated")
		wg.Wait()
		if e2 != nil {
			require.NoError(t, e2.Launch(nil))
			require.NoError(t, e2.Destroy())
		}
		require.NoError(t, dev.Synchronize())
		assert.Error(t, tmp.Free(), "released with its graph")
	}
	assert.Equal(t, base, poolUsed(t, dev), "every round's memory returned")
}

// A launch of a graph with memory nodes allocates nothing: neither from
// the pool nor on the Go heap.
func TestMemNodeLaunchAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	acc := newBuf(t, dev, 0)
	out := newBuf(t, dev, 0)
	g, _, _ := memGraph(t, dev, ks, x, acc, out)
	defer g.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	s := newStream(t, dev)
	launch := func() {
		if err := e.Launch(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	used := poolUsed(t, dev)
	assert.Zero(t, testing.AllocsPerRun(100, launch))
	assert.Equal(t, used, poolUsed(t, dev))
}

// SetKernelParams checks a new launch's uses of graph memory as
// Instantiate does.
func TestMemNodeSetKernelParams(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	g := graph.New()
	defer g.Destroy()
	early, err := g.AddKernel(saxpy(ks, 1, x, y))
	require.NoError(t, err)
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	fill, err := graph.AddFill(g, tmp, float32(1), a)
	require.NoError(t, err)
	k, err := g.AddKernel(saxpy(ks, 1, tmp, y), fill)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp, k)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()

	err = e.SetKernelParams(early, saxpy(ks, 1, x, tmp))
	assert.ErrorContains(t, err, "node 0 (kernel) uses")
	assert.ErrorContains(t, err, "before its alloc node 1")
	require.NoError(t, e.SetKernelParams(k, saxpy(ks, 2, tmp, y)))
	s := newStream(t, dev)
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.InDelta(t, 3.0, float64(read(t, y)[n-1]), 1e-6, "x·1 by the early node, then tmp·2")
}

// An alloc node of no elements gives an empty buffer that every node
// takes as empty.
func TestMemNodeEmpty(t *testing.T) {
	dev, _ := setup(t)
	g := graph.New()
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, tmp.Len())
	f, err := graph.AddFill(g, tmp, float32(1), a)
	require.NoError(t, err)
	_, err = g.AddMemFree(tmp, f)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	require.NoError(t, g.Destroy())
	require.NoError(t, e.Launch(nil))
	require.NoError(t, e.Launch(nil))
	require.NoError(t, dev.Synchronize())
	require.NoError(t, e.Destroy())
}

// Launches of a graph that allocates without freeing race with frees of
// its memory: every successful launch is followed by exactly one
// successful free, whatever the interleaving.
func TestMemNodeRacesLaunchFree(t *testing.T) {
	dev, _ := setup(t)
	g := graph.New()
	defer g.Destroy()
	a, tmp, err := graph.AddMemAlloc[float32](g, dev, n)
	require.NoError(t, err)
	_, err = graph.AddFill(g, tmp, float32(3), a)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	var launched, freed sync.WaitGroup
	var mu sync.Mutex
	nl, nf := 0, 0
	for i := 0; i < 2; i++ {
		s := newStream(t, dev)
		launched.Add(1)
		go func() {
			defer launched.Done()
			for r := 0; r < 200; r++ {
				if e.Launch(s) == nil {
					mu.Lock()
					nl++
					mu.Unlock()
				}
			}
		}()
		freed.Add(1)
		go func() {
			defer freed.Done()
			for r := 0; r < 200; r++ {
				var err error
				if r%2 == 0 {
					err = tmp.FreeAsync(s)
				} else {
					err = tmp.Free()
				}
				if err == nil {
					mu.Lock()
					nf++
					mu.Unlock()
				}
			}
		}()
	}
	launched.Wait()
	freed.Wait()
	require.NoError(t, dev.Synchronize())
	if tmp.Free() == nil {
		nf++
	}
	assert.Equal(t, nl, nf)
	assert.Positive(t, nl)
}
