package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// hip-tests catch/unit/graph/hipStreamBeginCapture.cc
func TestStreamBeginCapture(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamBeginCapture_Positive_Functional: "Linear graph capture"
	t.Run("Linear graph capture", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		require.NoError(t, graph.BeginCapture(s))
		assert.True(t, graph.IsCapturing(s))
		require.NoError(t, stream.Fill(s, b, int32(8)))
		g, err := graph.EndCapture(s)
		require.NoError(t, err)
		defer g.Destroy()
		assert.False(t, graph.IsCapturing(s))
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(8), out[63])
	})
	// Unit_hipStreamBeginCapture_Negative_Parameters
	t.Run("Capturing hipStream status with same stream again", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		err := graph.BeginCapture(s)
		assert.Equal(t, gpu.ErrIllegalState, code(err), "%v", err)
		g, err := graph.EndCapture(s)
		require.NoError(t, err)
		g.Destroy()
	})
	t.Run("Stream capture on uninitialized stream returns error code.", func(t *testing.T) {
		// Documented difference: HIP says hipErrorContextIsDestroyed for a
		// destroyed stream; hipgo says hipErrorInvalidHandle.
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		assert.Equal(t, gpu.ErrInvalidHandle, code(graph.BeginCapture(s)))
	})
}

// hip-tests catch/unit/graph/hipStreamEndCapture.cc: Unit_hipStreamEndCapture_Negative_Parameters
func TestStreamEndCaptureNegativeParameters(t *testing.T) {
	dev := device(t)
	t.Run("End capture on stream where capture has not yet started", func(t *testing.T) {
		_, err := graph.EndCapture(newStream(t, dev))
		assert.Equal(t, gpu.ErrIllegalState, code(err), "%v", err)
	})
	t.Run("Pass stream as nullptr", func(t *testing.T) {
		_, err := graph.EndCapture(nil)
		// Documented difference: HIP's nullptr is the null stream, which
		// is not capturing (hipErrorIllegalState); a nil *Stream is no stream.
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
}

// hip-tests catch/unit/graph/hipGraphAddKernelNode.cc: Unit_hipGraphAddKernelNode_Negative
func TestGraphAddKernelNodeNegative(t *testing.T) {
	dev := device(t)
	_, nop, _ := functions(t, dev)
	instantiate := func(k graph.Kernel) error {
		g := graph.New()
		defer g.Destroy()
		if _, err := g.AddKernel(k); err != nil {
			return err
		}
		e, err := g.Instantiate(dev)
		if err == nil {
			e.Destroy()
		}
		return err
	}
	t.Run("Pass NodeParams func data member as nullptr", func(t *testing.T) {
		err := instantiate(graph.Kernel{Grid: gpu.D1(1), Block: gpu.D1(1)})
		assert.Equal(t, gpu.ErrInvalidDeviceFunction, code(err), "%v", err)
	})
	t.Run("Try adding kernel node after destroy the already created graph", func(t *testing.T) {
		g := graph.New()
		require.NoError(t, g.Destroy())
		_, err := g.AddKernel(graph.Kernel{Func: nop, Grid: gpu.D1(1), Block: gpu.D1(1)})
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	// A grid of 0 in a kernel node: hipGraphAddKernelNode, like
	// hipLaunchKernelGGL, says hipErrorInvalidConfiguration.
	t.Run("zero grid", func(t *testing.T) {
		err := instantiate(graph.Kernel{Func: nop, Grid: gpu.D1(0), Block: gpu.D1(1)})
		assert.Equal(t, gpu.ErrInvalidConfiguration, code(err), "%v", err)
	})
}

// hip-tests catch/unit/graph/hipGraphLaunch.cc: Unit_hipGraphLaunch_Positive_* and
// hipGraphAddEmptyNode.cc: Unit_hipGraphAddEmptyNode_Functional
func TestGraphLaunch(t *testing.T) {
	dev := device(t)
	_, _, fill := functions(t, dev)
	s := newStream(t, dev)
	b := newBuffer[int32](t, dev, 128)
	g := graph.New()
	defer g.Destroy()
	e0, err := g.AddEmpty()
	require.NoError(t, err)
	k, err := g.AddKernel(graph.Kernel{Func: fill, Grid: gpu.D1(2), Block: gpu.D1(64), Args: []any{b, int32(2), int32(128)}}, e0)
	require.NoError(t, err)
	assert.Equal(t, []*graph.Node{e0}, k.Dependencies())
	exec, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer exec.Destroy()
	for i := 0; i < 3; i++ {
		require.NoError(t, exec.Launch(s))
	}
	require.NoError(t, s.Synchronize())
	out, err := b.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(2), out[127])
	// hipGraphLaunch(exec, nullptr) launches on the null stream: a nil
	// *Stream is the device's default stream.
	t.Run("null stream", func(t *testing.T) {
		require.NoError(t, exec.Launch(nil))
		ds, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		assert.NoError(t, ds.Synchronize())
	})
}

// hip-tests catch/unit/graph/hipGraphAddMemAllocNode.cc: a graph with a
// memory allocation node has one instantiation at a time; a second while
// the first lives is hipErrorNotSupported, and it instantiates again once
// the first is destroyed.
func TestGraphMemAllocNodeInstantiateTwice(t *testing.T) {
	dev := device(t)
	g := graph.New()
	defer g.Destroy()
	alloc, b, err := graph.AddMemAlloc[int32](g, dev, 64)
	require.NoError(t, err)
	_, err = g.AddMemFree(b, alloc)
	require.NoError(t, err)
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	t.Run("second instantiation", func(t *testing.T) {
		_, err := g.Instantiate(dev)
		assert.Equal(t, gpu.ErrNotSupported, code(err), "%v", err)
	})
	t.Run("after the first is destroyed", func(t *testing.T) {
		require.NoError(t, e.Destroy())
		e2, err := g.Instantiate(dev)
		require.NoError(t, err)
		assert.NoError(t, e2.Destroy())
	})
	t.Run("a graph without memory nodes instantiates twice", func(t *testing.T) {
		h := graph.New()
		defer h.Destroy()
		_, err := h.AddEmpty()
		require.NoError(t, err)
		e1, err := h.Instantiate(dev)
		require.NoError(t, err)
		defer e1.Destroy()
		e2, err := h.Instantiate(dev)
		require.NoError(t, err)
		defer e2.Destroy()
	})
}

// hip-tests catch/unit/graph/hipGraphAddDependencies.cc and
// hipGraphAddKernelNode.cc (Negative: a dependency listed twice) and
// hipGraphAddMemcpyNode1D.cc (Negative: count == 0).
func TestGraphNodeNegativeParameters(t *testing.T) {
	dev := device(t)
	x, y := newBuffer[int32](t, dev, 16), newBuffer[int32](t, dev, 16)
	g := graph.New()
	defer g.Destroy()
	root, err := g.AddEmpty()
	require.NoError(t, err)
	t.Run("duplicate dependency", func(t *testing.T) {
		_, err := g.AddEmpty(root, root)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
		_, err = g.AddCopy(y, 0, x, 0, 16, root, root)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("memcpy node of 0 bytes", func(t *testing.T) {
		_, err := g.AddCopy(y, 0, x, 0, 0, root)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("distinct dependencies", func(t *testing.T) {
		other, err := g.AddEmpty()
		require.NoError(t, err)
		_, err = g.AddCopy(y, 0, x, 0, 16, root, other)
		assert.NoError(t, err)
	})
}

// diamond builds fill → (copy a, copy b) → empty over fresh buffers.
func diamond(t *testing.T, g *graph.Graph, x, y, z *buffer.Buffer[int32]) (fill, ca, cb, join *graph.Node) {
	t.Helper()
	var err error
	fill, err = graph.AddFill(g, x, int32(6))
	require.NoError(t, err)
	ca, err = g.AddCopy(y, 0, x, 0, x.Len(), fill)
	require.NoError(t, err)
	cb, err = g.AddCopy(z, 0, x, 0, x.Len(), fill)
	require.NoError(t, err)
	join, err = g.AddEmpty(ca, cb)
	require.NoError(t, err)
	return fill, ca, cb, join
}

// hip-tests catch/unit/graph/hipGraphGetNodes.cc, hipGraphGetRootNodes.cc,
// hipGraphGetEdges.cc and hipGraphNodeGetDependentNodes.cc (Positive).
func TestGraphInspect(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	g := graph.New()
	defer g.Destroy()
	fill, ca, cb, join := diamond(t, g, x, y, z)
	t.Run("hipGraphGetNodes", func(t *testing.T) {
		assert.Equal(t, []*graph.Node{fill, ca, cb, join}, g.Nodes())
	})
	t.Run("hipGraphGetRootNodes", func(t *testing.T) {
		assert.Equal(t, []*graph.Node{fill}, g.RootNodes())
	})
	t.Run("hipGraphGetEdges", func(t *testing.T) {
		from, to := g.Edges()
		assert.Equal(t, []*graph.Node{fill, fill, ca, cb}, from)
		assert.Equal(t, []*graph.Node{ca, cb, join, join}, to)
	})
	t.Run("hipGraphNodeGetDependentNodes", func(t *testing.T) {
		assert.Equal(t, []*graph.Node{ca, cb}, fill.Dependents())
		assert.Empty(t, join.Dependents())
	})
	t.Run("hipGraphNodeGetDependencies", func(t *testing.T) {
		assert.Equal(t, []*graph.Node{ca, cb}, join.Dependencies())
	})
	t.Run("empty graph", func(t *testing.T) {
		assert.Empty(t, graph.New().Nodes())
		assert.Empty(t, graph.New().RootNodes())
	})
}

// hip-tests catch/unit/graph/hipGraphClone.cc: Unit_hipGraphClone_Positive_Basic and _Negative
func TestGraphClone(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	g := graph.New()
	diamond(t, g, x, y, z)
	t.Run("Positive_Basic", func(t *testing.T) {
		c, err := g.Clone()
		require.NoError(t, err)
		defer c.Destroy()
		require.NoError(t, g.Destroy(), "the clone outlives its original")
		assert.Equal(t, 4, c.Len())
		from, _ := c.Edges()
		assert.Len(t, from, 4)
		for _, n := range c.Nodes() {
			for _, d := range n.Dependencies() {
				assert.Contains(t, c.Nodes(), d, "a clone's dependencies are its own nodes")
			}
		}
		e, err := c.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		out, err := z.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(6), out[31])
	})
	t.Run("captured graph", func(t *testing.T) {
		s := newStream(t, dev)
		w := newBuffer[int32](t, dev, 64)
		require.NoError(t, graph.BeginCapture(s))
		require.NoError(t, stream.Fill(s, w, int32(3)))
		ran := 0
		require.NoError(t, s.LaunchHostFunc(func() error { ran++; return nil }))
		cg, err := graph.EndCapture(s)
		require.NoError(t, err)
		c, err := cg.Clone()
		require.NoError(t, err)
		require.NoError(t, cg.Destroy())
		defer c.Destroy()
		e, err := c.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		require.NoError(t, e.Launch(s))
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		out, err := w.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(3), out[63])
		assert.Equal(t, 2, ran)
	})
	t.Run("Negative: originalGraph == nullptr", func(t *testing.T) {
		var ng *graph.Graph
		_, err := ng.Clone()
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("graph with memory nodes", func(t *testing.T) {
		m := graph.New()
		defer m.Destroy()
		_, _, err := graph.AddMemAlloc[int32](m, dev, 16)
		require.NoError(t, err)
		_, err = m.Clone()
		assert.Equal(t, gpu.ErrNotSupported, code(err))
	})
}

// hip-tests catch/unit/graph/hipGraphAddChildGraphNode.cc: Unit_hipGraphAddChildGraphNode_Functional
// and _Negative_Parameters (the child's work runs between the node's
// dependencies and its dependents; a copy of the child is taken).
func TestGraphAddChildGraphNode(t *testing.T) {
	dev := device(t)
	x, y, z := newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32), newBuffer[int32](t, dev, 32)
	child := graph.New()
	defer child.Destroy()
	cfill, err := graph.AddFill(child, y, int32(0))
	require.NoError(t, err)
	_, err = child.AddCopy(y, 0, x, 0, 32, cfill)
	require.NoError(t, err)

	g := graph.New()
	defer g.Destroy()
	fill, err := graph.AddFill(g, x, int32(11))
	require.NoError(t, err)
	node, err := g.AddChildGraph(child, fill)
	require.NoError(t, err)
	last, err := g.AddCopy(z, 0, y, 0, 32, node)
	require.NoError(t, err)
	t.Run("Functional", func(t *testing.T) {
		require.NoError(t, child.Destroy(), "the node holds a copy")
		child = graph.New()
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		out, err := z.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(11), out[31], "fill, then the child's copy, then the copy after it")
	})
	t.Run("node and its edges", func(t *testing.T) {
		assert.Equal(t, "child graph", node.Kind())
		assert.Equal(t, []*graph.Node{fill, node, last}, g.Nodes())
		assert.Equal(t, 3, g.Len())
		assert.Equal(t, []*graph.Node{fill}, node.Dependencies())
		assert.Equal(t, []*graph.Node{node}, fill.Dependents())
		assert.Equal(t, []*graph.Node{last}, node.Dependents())
	})
	t.Run("Negative: childGraph == nullptr", func(t *testing.T) {
		_, err := g.AddChildGraph(nil)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("Negative: graph == nullptr", func(t *testing.T) {
		var ng *graph.Graph
		_, err := ng.AddChildGraph(graph.New())
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("Negative: its own child", func(t *testing.T) {
		_, err := g.AddChildGraph(g)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
	t.Run("empty child", func(t *testing.T) {
		h := graph.New()
		defer h.Destroy()
		n, err := h.AddChildGraph(graph.New())
		require.NoError(t, err)
		assert.Empty(t, n.Dependencies())
		e, err := h.Instantiate(dev)
		require.NoError(t, err)
		assert.NoError(t, e.Destroy())
	})
}

// hip-tests catch/unit/graph/hipStreamGetCaptureInfo.cc: Unit_hipStreamGetCaptureInfo_BasicFunctional,
// _UniqueID and _ParamValidation
func TestStreamGetCaptureInfo(t *testing.T) {
	dev := device(t)
	t.Run("BasicFunctional", func(t *testing.T) {
		s := newStream(t, dev)
		st, id, err := graph.CaptureInfo(s)
		require.NoError(t, err)
		assert.Equal(t, graph.CaptureStatusNone, st)
		assert.Zero(t, id)
		require.NoError(t, graph.BeginCapture(s))
		st, id, err = graph.CaptureInfo(s)
		require.NoError(t, err)
		assert.Equal(t, graph.CaptureStatusActive, st)
		assert.NotZero(t, id)
		g, err := graph.EndCapture(s)
		require.NoError(t, err)
		require.NoError(t, g.Destroy())
		st, _, err = graph.CaptureInfo(s)
		require.NoError(t, err)
		assert.Equal(t, graph.CaptureStatusNone, st)
	})
	t.Run("UniqueID", func(t *testing.T) {
		a, b := newStream(t, dev), newStream(t, dev)
		require.NoError(t, graph.BeginCapture(a))
		require.NoError(t, graph.BeginCapture(b))
		_, ia, err := graph.CaptureInfo(a)
		require.NoError(t, err)
		_, ib, err := graph.CaptureInfo(b)
		require.NoError(t, err)
		assert.NotEqual(t, ia, ib)
		for _, s := range []*stream.Stream{a, b} {
			g, err := graph.EndCapture(s)
			require.NoError(t, err)
			require.NoError(t, g.Destroy())
		}
	})
	t.Run("Invalidated", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		require.Error(t, s.Synchronize(), "not permitted while capturing: invalidates the capture")
		st, _, err := graph.CaptureInfo(s)
		require.NoError(t, err)
		assert.Equal(t, graph.CaptureStatusInvalidated, st)
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, code(err))
	})
	t.Run("ParamValidation: destroyed stream", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		_, _, err = graph.CaptureInfo(s)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err))
	})
}
