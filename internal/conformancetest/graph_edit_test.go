package conformancetest

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// launchAndRead instantiates g, launches it once and returns b's contents.
func launchAndRead(t *testing.T, dev *gpu.Device, g *graph.Graph, b *buffer.Buffer[int32]) []int32 {
	t.Helper()
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	return runExec(t, dev, e, b)
}

// runExec launches e once and returns b's contents.
func runExec(t *testing.T, dev *gpu.Device, e *graph.Exec, b *buffer.Buffer[int32]) []int32 {
	t.Helper()
	s := newStream(t, dev)
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	out, err := b.ToSlice()
	require.NoError(t, err)
	return out
}

// unordered adds fill x=6, copy y←x, copy z←y with no edges between them.
func unordered(t *testing.T, g *graph.Graph, x, y, z *buffer.Buffer[int32]) (fill, cy, cz *graph.Node) {
	t.Helper()
	var err error
	fill, err = graph.AddFill(g, x, int32(6))
	require.NoError(t, err)
	cy, err = g.AddCopy(y, 0, x, 0, x.Len())
	require.NoError(t, err)
	cz, err = g.AddCopy(z, 0, y, 0, y.Len())
	require.NoError(t, err)
	return fill, cy, cz
}

// hip-tests catch/unit/graph/hipGraphAddDependencies.cc
func TestGraphAddDependencies(t *testing.T) {
	dev := device(t)
	newGraph := func(t *testing.T) (*graph.Graph, *buffer.Buffer[int32], [3]*graph.Node) {
		x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
		g := graph.New()
		t.Cleanup(func() { _ = g.Destroy() })
		f, cy, cz := unordered(t, g, x, y, z)
		return g, z, [3]*graph.Node{f, cy, cz}
	}
	// Unit_hipGraphAddDependencies_Positive_Functional
	t.Run("Create dependencies node by node", func(t *testing.T) {
		g, z, n := newGraph(t)
		require.NoError(t, g.AddDependencies([]*graph.Node{n[1]}, []*graph.Node{n[2]}))
		require.NoError(t, g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{n[1]}))
		assert.Equal(t, int32(6), launchAndRead(t, dev, g, z)[31])
		assert.Equal(t, []*graph.Node{n[0]}, g.RootNodes())
	})
	t.Run("Create dependencies with node lists", func(t *testing.T) {
		g, z, n := newGraph(t)
		require.NoError(t, g.AddDependencies([]*graph.Node{n[1], n[0]}, []*graph.Node{n[2], n[1]}))
		assert.Equal(t, int32(6), launchAndRead(t, dev, g, z)[31])
		from, to := g.Edges()
		assert.Len(t, from, 2)
		assert.Len(t, to, 2)
	})
	// Unit_hipGraphAddDependencies_Positive_Parameters
	t.Run("numDependencies is zero, To/From are nullptr", func(t *testing.T) {
		g, _, _ := newGraph(t)
		assert.NoError(t, g.AddDependencies(nil, nil))
	})
	// Unit_hipGraphAddDependencies_Negative_Parameters
	t.Run("Null Graph", func(t *testing.T) {
		_, _, n := newGraph(t)
		var ng *graph.Graph
		assert.Equal(t, gpu.ErrInvalidValue, code(ng.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{n[1]})))
	})
	t.Run("To or From is nullptr", func(t *testing.T) {
		g, _, n := newGraph(t)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{nil})))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{nil}, []*graph.Node{n[0]})))
	})
	t.Run("From belongs to different graph", func(t *testing.T) {
		g, _, n := newGraph(t)
		_, _, o := newGraph(t)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{o[0]}, []*graph.Node{n[1]})))
	})
	t.Run("To belongs to different graph", func(t *testing.T) {
		g, _, n := newGraph(t)
		_, _, o := newGraph(t)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{o[1]})))
	})
	t.Run("Duplicate Dependencies", func(t *testing.T) {
		g, _, n := newGraph(t)
		require.NoError(t, g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{n[1]}))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{n[1]})))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[1], n[1]}, []*graph.Node{n[2], n[2]})))
		assert.Empty(t, n[2].Dependencies(), "a refused list adds no edge")
	})
	t.Run("Same Node Dependencies", func(t *testing.T) {
		g, _, n := newGraph(t)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[0]}, []*graph.Node{n[0]})))
	})
	t.Run("numDependencies > To/From length", func(t *testing.T) {
		g, _, n := newGraph(t)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[0], n[1]}, []*graph.Node{n[2]})))
	})
	// hip-tests catch/unit/graph/hipGraphCycle.cc: a cycle does not run.
	t.Run("cycle", func(t *testing.T) {
		g, _, n := newGraph(t)
		require.NoError(t, g.AddDependencies([]*graph.Node{n[0], n[1]}, []*graph.Node{n[1], n[2]}))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.AddDependencies([]*graph.Node{n[2]}, []*graph.Node{n[0]})))
		assert.Empty(t, n[0].Dependencies())
	})
}

// hip-tests catch/unit/graph/hipGraphRemoveDependencies.cc
func TestGraphRemoveDependencies(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	// Unit_hipGraphRemoveDependencies_Positive_Functional: an edge removed
	// and the same work ordered again by another.
	t.Run("Positive_Functional", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		f, cy, cz := unordered(t, g, x, y, z)
		require.NoError(t, g.AddDependencies([]*graph.Node{f, cy}, []*graph.Node{cy, cz}))
		require.NoError(t, g.RemoveDependencies([]*graph.Node{cy}, []*graph.Node{cz}))
		assert.Empty(t, cz.Dependencies())
		require.NoError(t, g.AddDependencies([]*graph.Node{cy}, []*graph.Node{cz}))
		assert.Equal(t, int32(6), launchAndRead(t, dev, g, z)[0])
	})
	t.Run("Negative_Parameters", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		f, cy, _ := unordered(t, g, x, y, z)
		var ng *graph.Graph
		assert.Equal(t, gpu.ErrInvalidValue, code(ng.RemoveDependencies([]*graph.Node{f}, []*graph.Node{cy})))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.RemoveDependencies([]*graph.Node{f}, []*graph.Node{cy})), "no such edge")
		assert.Equal(t, gpu.ErrInvalidValue, code(g.RemoveDependencies([]*graph.Node{nil}, []*graph.Node{cy})))
		o := graph.New()
		defer o.Destroy()
		on, err := o.AddEmpty()
		require.NoError(t, err)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.RemoveDependencies([]*graph.Node{on}, []*graph.Node{cy})))
	})
}

// hip-tests catch/unit/graph/hipGraphDestroyNode.cc
func TestGraphDestroyNode(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	// Unit_hipGraphDestroyNode_BasicFunctionality: the node and its edges go.
	t.Run("BasicFunctionality", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		fill, ca, cb, join := diamond(t, g, x, y, z)
		require.NoError(t, g.DestroyNode(ca))
		assert.Equal(t, []*graph.Node{fill, cb, join}, g.Nodes())
		assert.Equal(t, []*graph.Node{cb}, join.Dependencies())
		assert.Equal(t, []*graph.Node{cb}, fill.Dependents())
		assert.Equal(t, int32(6), launchAndRead(t, dev, g, z)[0])
	})
	// Unit_hipGraphDestroyNode_Negative
	t.Run("Negative", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		n, err := g.AddEmpty()
		require.NoError(t, err)
		assert.Equal(t, gpu.ErrInvalidValue, code(g.DestroyNode(nil)))
		require.NoError(t, g.DestroyNode(n))
		assert.Equal(t, gpu.ErrInvalidValue, code(g.DestroyNode(n)), "destroyed twice")
		_, err = g.AddEmpty(n)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "a destroyed node as a dependency")
	})
	t.Run("child graph node", func(t *testing.T) {
		child := graph.New()
		defer child.Destroy()
		_, _, _ = unordered(t, child, x, y, z)
		g := graph.New()
		defer g.Destroy()
		c, err := g.AddChildGraph(child)
		require.NoError(t, err)
		after, err := g.AddEmpty(c)
		require.NoError(t, err)
		require.NoError(t, g.DestroyNode(c))
		assert.Equal(t, []*graph.Node{after}, g.Nodes())
		e, err := g.Instantiate(dev)
		require.NoError(t, err, "the child's copy went with it")
		require.NoError(t, e.Destroy())
	})
}

// hip-tests catch/unit/graph/hipGraphExecUpdate.cc
func TestGraphExecUpdate(t *testing.T) {
	dev := device(t)
	_, _, fill := functions(t, dev)
	x, y := newBuffer[int32](t, dev, 128), newBuffer[int32](t, dev, 128)
	build := func(t *testing.T, v int32) (*graph.Graph, *graph.Node) {
		g := graph.New()
		t.Cleanup(func() { _ = g.Destroy() })
		k, err := g.AddKernel(graph.Kernel{Func: fill, Grid: gpu.D1(2), Block: gpu.D1(64), Args: []any{x, v, int32(128)}})
		require.NoError(t, err)
		c, err := g.AddCopy(y, 0, x, 0, 128)
		require.NoError(t, err)
		require.NoError(t, g.AddDependencies([]*graph.Node{k}, []*graph.Node{c}))
		return g, k
	}
	// Unit_hipGraphExecUpdate_Negative_Basic
	t.Run("Pass hGraphExec as nullptr", func(t *testing.T) {
		g, _ := build(t, 1)
		var e *graph.Exec
		_, _, err := e.Update(g)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("Pass hGraph as nullptr", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		_, _, err = e.Update(nil)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	// Unit_hipGraphExecUpdate_Functional
	t.Run("Update graphExec with clone graph", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		c, err := g.Clone()
		require.NoError(t, err)
		defer c.Destroy()
		r, n, err := e.Update(c)
		require.NoError(t, err)
		assert.Equal(t, graph.UpdateSuccess, r)
		assert.Nil(t, n)
	})
	t.Run("Update the executable-graph from a graph", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		assert.Equal(t, int32(1), runExec(t, dev, e, y)[127])
		g2, _ := build(t, 9)
		r, _, err := e.Update(g2)
		require.NoError(t, err)
		assert.Equal(t, graph.UpdateSuccess, r)
		assert.Equal(t, int32(9), runExec(t, dev, e, y)[127], "the update takes effect")
	})
	// Unit_hipGraphExecUpdate_Negative_TypeChange
	t.Run("Negative_TypeChange", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, err := graph.AddFill(g, x, int32(0))
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		g2 := graph.New()
		defer g2.Destroy()
		cp, err := g2.AddCopy(y, 0, x, 0, 128)
		require.NoError(t, err)
		r, n, err := e.Update(g2)
		assert.Equal(t, gpu.ErrGraphExecUpdateFailure, code(err))
		assert.Equal(t, graph.UpdateErrorNodeTypeChanged, r)
		assert.Equal(t, cp, n, "the error node")
	})
	// Unit_hipGraphExecUpdate_Negative_CountDiffer
	t.Run("When a node deleted from Graph but not from its pair GraphExec", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		g2, _ := build(t, 1)
		_, err = g2.AddEmpty()
		require.NoError(t, err)
		r, _, err := e.Update(g2)
		assert.Equal(t, gpu.ErrGraphExecUpdateFailure, code(err))
		assert.Equal(t, graph.UpdateErrorTopologyChanged, r)
		assert.Equal(t, int32(1), runExec(t, dev, e, y)[0], "a refused update leaves the Exec as it was")
	})
	t.Run("When the dependent nodes of a pair differ", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		g2 := graph.New()
		defer g2.Destroy()
		_, err = g2.AddKernel(graph.Kernel{Func: fill, Grid: gpu.D1(2), Block: gpu.D1(64), Args: []any{x, int32(1), int32(128)}})
		require.NoError(t, err)
		_, err = g2.AddCopy(y, 0, x, 0, 128) // no edge
		require.NoError(t, err)
		r, _, err := e.Update(g2)
		assert.Equal(t, gpu.ErrGraphExecUpdateFailure, code(err))
		assert.Equal(t, graph.UpdateErrorTopologyChanged, r)
	})
	// Unit_hipGraphExecUpdate_Negative_Functional_ParametersChanged: a
	// node whose new parameters an instantiation would refuse.
	t.Run("ParametersChanged", func(t *testing.T) {
		g, _ := build(t, 1)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		g2 := graph.New()
		defer g2.Destroy()
		bad, err := g2.AddKernel(graph.Kernel{Func: fill, Grid: gpu.D1(2), Block: gpu.D1(1 << 20), Args: []any{x, int32(1), int32(128)}})
		require.NoError(t, err)
		c, err := g2.AddCopy(y, 0, x, 0, 128)
		require.NoError(t, err)
		require.NoError(t, g2.AddDependencies([]*graph.Node{bad}, []*graph.Node{c}))
		r, n, err := e.Update(g2)
		assert.Equal(t, gpu.ErrGraphExecUpdateFailure, code(err))
		assert.Equal(t, graph.UpdateErrorParametersChanged, r)
		assert.Equal(t, bad, n)
	})
	t.Run("memory nodes are not supported", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, _, err := graph.AddMemAlloc[int32](g, dev, 16)
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		r, _, err := e.Update(g)
		assert.Equal(t, gpu.ErrGraphExecUpdateFailure, code(err))
		assert.Equal(t, graph.UpdateErrorNotSupported, r)
	})
}

// hip-tests catch/unit/graph/hipGraphExecMemcpyNodeSetParams1D.cc,
// hipGraphExecMemsetNodeSetParams.cc, hipGraphExecHostNodeSetParams.cc and
// hipGraphExecKernelNodeSetParams.cc: the executable graph changes, the
// graph does not.
func TestGraphExecNodeSetParams(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	g := graph.New()
	defer g.Destroy()
	f, err := graph.AddFill(g, x, int32(6))
	require.NoError(t, err)
	cp, err := g.AddCopy(y, 0, x, 0, 32, f)
	require.NoError(t, err)
	var calls atomic.Int32
	h, err := g.AddHost(func() error { calls.Add(1); return nil }, cp)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	// Unit_hipGraphExecMemsetNodeSetParams_Functional
	t.Run("hipGraphExecMemsetNodeSetParams", func(t *testing.T) {
		require.NoError(t, graph.SetFillParams(e, f, x, int32(11)))
		assert.Equal(t, int32(11), runExec(t, dev, e, y)[31])
	})
	// Unit_hipGraphExecMemcpyNodeSetParams1D_Functional
	t.Run("hipGraphExecMemcpyNodeSetParams1D", func(t *testing.T) {
		require.NoError(t, e.SetCopyParams(cp, z, 0, x, 0, 32))
		assert.Equal(t, int32(11), runExec(t, dev, e, z)[31])
	})
	// Unit_hipGraphExecHostNodeSetParams_Functional
	t.Run("hipGraphExecHostNodeSetParams", func(t *testing.T) {
		var other atomic.Int32
		require.NoError(t, e.SetHostParams(h, func() error { other.Add(1); return nil }))
		before := calls.Load()
		runExec(t, dev, e, z)
		assert.Equal(t, int32(1), other.Load())
		assert.Equal(t, before, calls.Load())
	})
	// The Negative cases of the four files.
	t.Run("Negative", func(t *testing.T) {
		var ne *graph.Exec
		assert.Equal(t, gpu.ErrInvalidValue, code(ne.SetCopyParams(cp, z, 0, x, 0, 32)), "hGraphExec is nullptr")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetCopyParams(nil, z, 0, x, 0, 32)), "node is nullptr")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetCopyParams(f, z, 0, x, 0, 32)), "a memset node")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetCopyParams(cp, z, 0, x, 0, 0)), "count 0")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetCopyParams(cp, z, 0, x, 1, 32)), "out of range")
		assert.Equal(t, gpu.ErrInvalidValue, code(graph.SetFillParams(e, cp, x, int32(1))), "a memcpy node")
		assert.Equal(t, gpu.ErrInvalidValue, code(graph.SetFillParams(e, f, x, float32(1))), "another element type")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetHostParams(h, nil)), "nil function")
		assert.Equal(t, gpu.ErrInvalidValue, code(e.SetHostParams(cp, func() error { return nil })), "a memcpy node")
		o := graph.New()
		defer o.Destroy()
		on, err := graph.AddFill(o, x, int32(0))
		require.NoError(t, err)
		assert.Equal(t, gpu.ErrInvalidValue, code(graph.SetFillParams(e, on, x, int32(1))), "a node of another graph")
	})
	t.Run("graph unchanged", func(t *testing.T) {
		assert.Equal(t, int32(6), launchAndRead(t, dev, g, y)[0])
	})
}

// hip-tests catch/unit/graph/hipGraphInstantiateWithFlags.cc
func TestGraphInstantiateWithFlags(t *testing.T) {
	dev := device(t)
	// Unit_hipGraphInstantiateWithFlags_Negative
	t.Run("Passing nullptr to graph", func(t *testing.T) {
		var g *graph.Graph
		_, err := g.InstantiateWithFlags(dev, 0)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("Passing Invalid flag", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, err := g.InstantiateWithFlags(dev, 10)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
		for _, fl := range []graph.InstantiateFlags{graph.InstantiateUpload, graph.InstantiateDeviceLaunch, graph.InstantiateAutoFreeOnLaunch | graph.InstantiateUseNodePriority} {
			_, err = g.InstantiateWithFlags(dev, fl)
			assert.Equal(t, gpu.ErrInvalidValue, code(err), "flags %d", fl)
		}
	})
	// Unit_hipGraphInstantiateWithFlags_DependencyGraph
	t.Run("DependencyGraph", func(t *testing.T) {
		x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
		g := graph.New()
		defer g.Destroy()
		f, cy, cz := unordered(t, g, x, y, z)
		require.NoError(t, g.AddDependencies([]*graph.Node{f, cy}, []*graph.Node{cy, cz}))
		for _, fl := range []graph.InstantiateFlags{0, graph.InstantiateAutoFreeOnLaunch, graph.InstantiateUseNodePriority} {
			e, err := g.InstantiateWithFlags(dev, fl)
			require.NoError(t, err)
			assert.Equal(t, fl, e.Flags(), "hipGraphExecGetFlags")
			assert.Equal(t, int32(6), runExec(t, dev, e, z)[31])
			require.NoError(t, e.Destroy())
		}
	})
	// Unit_hipGraphInstantiateWithFlags_AutoFreeOnLaunchInLoop
	t.Run("AutoFreeOnLaunchInLoop", func(t *testing.T) {
		g := graph.New()
		defer g.Destroy()
		_, b, err := graph.AddMemAlloc[int32](g, dev, 1024)
		require.NoError(t, err)
		e, err := g.InstantiateWithFlags(dev, graph.InstantiateAutoFreeOnLaunch)
		require.NoError(t, err)
		s := newStream(t, dev)
		for range 10 {
			require.NoError(t, e.Launch(s))
			require.NoError(t, s.Synchronize())
			assert.Equal(t, 1024, b.Len())
		}
		require.NoError(t, b.Free())
		require.NoError(t, e.Destroy())
		plain, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer plain.Destroy()
		require.NoError(t, plain.Launch(s))
		err = plain.Launch(s)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "without the flag a second launch before the free is refused")
		require.NoError(t, s.Synchronize())
	})
}

// hip-tests catch/unit/graph/hipGraphUpload.cc
func TestGraphUpload(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	g := graph.New()
	defer g.Destroy()
	diamond(t, g, x, y, z)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	// Unit_hipGraphUpload_Positive
	t.Run("stream as a created stream", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, e.Upload(s))
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
	})
	t.Run("stream as nullptr", func(t *testing.T) {
		assert.NoError(t, e.Upload(nil))
	})
	t.Run("stream as the null stream", func(t *testing.T) {
		l, err := stream.Legacy(dev)
		require.NoError(t, err)
		assert.NoError(t, e.Upload(l))
	})
	// Unit_hipGraphUpload_Negative
	t.Run("Negative", func(t *testing.T) {
		var ne *graph.Exec
		assert.Equal(t, gpu.ErrInvalidValue, code(ne.Upload(nil)))
		require.NoError(t, e.Destroy())
		assert.Equal(t, gpu.ErrInvalidValue, code(e.Upload(nil)), "a destroyed executable graph")
	})
}
