package graph_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Update, the per-node setters and the graph's edge edits race launches
// of the Exec and, at the end, its Destroy: each call succeeds or says the
// Exec is gone, and no launch sees half an update (run under -race).
func TestRacingUpdates(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	z := newBuf(t, dev, 0)
	build := func() (*graph.Graph, *graph.Node, *graph.Node, *graph.Node) {
		g := graph.New()
		k, err := g.AddKernel(saxpy(ks, 1, x, y))
		require.NoError(t, err)
		c, err := g.AddCopy(z, 0, y, 0, n)
		require.NoError(t, err)
		f, err := graph.AddFill(g, x, float32(1))
		require.NoError(t, err)
		require.NoError(t, g.AddDependencies([]*graph.Node{f, k}, []*graph.Node{k, c}))
		return g, k, c, f
	}
	g, k, c, f := build()
	defer g.Destroy()
	g2, _, _, _ := build()
	defer g2.Destroy()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)

	gone := func(err error) bool { return err == nil || gpu.CodeOf(err) == gpu.ErrInvalidValue }
	var wg sync.WaitGroup
	run := func(fn func()) {
		wg.Add(1)
		go func() { defer wg.Done(); fn() }()
	}
	for range 3 {
		run(func() {
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for range 20 {
				assert.True(t, gone(e.Launch(s)))
			}
			assert.NoError(t, s.Synchronize())
		})
	}
	run(func() {
		for range 10 {
			_, _, err := e.Update(g2)
			assert.True(t, gone(err), "%v", err)
			assert.True(t, gone(e.SetCopyParams(c, z, 0, y, 0, n)))
			assert.True(t, gone(graph.SetFillParams(e, f, x, float32(1))))
			assert.True(t, gone(e.SetKernelParams(k, saxpy(ks, 1, x, y))))
			assert.True(t, gone(e.Upload(nil)))
		}
	})
	run(func() {
		for range 10 {
			assert.NoError(t, g.RemoveDependencies([]*graph.Node{k}, []*graph.Node{c}))
			_ = k.Dependents()
			_, _ = g.Edges()
			assert.NoError(t, g.AddDependencies([]*graph.Node{k}, []*graph.Node{c}))
		}
	})
	run(func() {
		for range 5 {
			ex, err := g.Instantiate(dev)
			if assert.NoError(t, err) {
				assert.NoError(t, ex.Destroy())
			}
		}
	})
	run(func() {
		s, err := stream.New(dev)
		if !assert.NoError(t, err) {
			return
		}
		defer s.Destroy()
		for range 5 {
			assert.True(t, gone(e.Launch(s)))
		}
		assert.NoError(t, e.Destroy())
		assert.NoError(t, s.Synchronize())
	})
	wg.Wait()
	require.NoError(t, dev.Synchronize())
	_, _, err = e.Update(g2)
	assert.Equal(t, gpu.ErrInvalidValue, gpu.CodeOf(err), "update of a destroyed Exec")
}

// Edges added out of the order of addition reorder the graph: the copy
// added first runs after the fill added last.
func TestAddDependenciesReorders(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 0)
	y := newBuf(t, dev, 0)
	g := graph.New()
	defer g.Destroy()
	c, err := g.AddCopy(y, 0, x, 0, n)
	require.NoError(t, err)
	f, err := graph.AddFill(g, x, float32(5))
	require.NoError(t, err)
	require.NoError(t, g.AddDependencies([]*graph.Node{f}, []*graph.Node{c}))
	assert.Equal(t, []*graph.Node{f, c}, g.Nodes())
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, e.Launch(nil))
	require.NoError(t, dev.Synchronize())
	assert.InDelta(t, 5.0, read(t, y)[n-1], 1e-6)
}

// An edge into a child graph node orders every first node of the child;
// removing it lets them run at once again.
func TestChildGraphEdges(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 0)
	y := newBuf(t, dev, 0)
	child := graph.New()
	defer child.Destroy()
	_, err := child.AddCopy(y, 0, x, 0, n)
	require.NoError(t, err)
	g := graph.New()
	defer g.Destroy()
	cn, err := g.AddChildGraph(child)
	require.NoError(t, err)
	f, err := graph.AddFill(g, x, float32(7))
	require.NoError(t, err)
	require.NoError(t, g.AddDependencies([]*graph.Node{f}, []*graph.Node{cn}))
	assert.Equal(t, []*graph.Node{f}, cn.Dependencies())
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, e.Launch(nil))
	require.NoError(t, dev.Synchronize())
	assert.InDelta(t, 7.0, read(t, y)[0], 1e-6, "the child's copy ran after the fill")
	require.NoError(t, g.RemoveDependencies([]*graph.Node{f}, []*graph.Node{cn}))
	assert.Empty(t, cn.Dependencies())
	assert.Equal(t, gpu.ErrInvalidValue, gpu.CodeOf(g.AddDependencies([]*graph.Node{cn}, []*graph.Node{cn})))
}
