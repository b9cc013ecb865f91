package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/graph"
)

// Every exported method of a nil Graph, Node or Exec answers a zero value
// or an error; none panics.
func TestNilReceivers(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	defer x.Free()

	var (
		g *graph.Graph
		n *graph.Node
		e *graph.Exec
	)
	assert.NotPanics(t, func() {
		assert.Zero(t, g.Len())
		assert.Empty(t, n.Kind())
		assert.Nil(t, n.Dependencies())
		assert.False(t, graph.IsCapturing(nil))
	})

	k := saxpy(ks, 2, x, x)
	ops := map[string]func() error{
		"Graph.AddKernel":      func() error { _, err := g.AddKernel(k); return err },
		"Graph.AddCopy":        func() error { _, err := g.AddCopy(x, 0, x, 0, 1); return err },
		"Graph.AddHost":        func() error { _, err := g.AddHost(func() error { return nil }); return err },
		"Graph.AddEmpty":       func() error { _, err := g.AddEmpty(); return err },
		"AddFill":              func() error { _, err := graph.AddFill(g, x, float32(0)); return err },
		"AddMemAlloc":          func() error { _, _, err := graph.AddMemAlloc[float32](g, dev, 1); return err },
		"Graph.AddMemFree":     func() error { _, err := g.AddMemFree(x); return err },
		"Node.MemParams":       func() error { _, err := n.MemParams(); return err },
		"Graph.Instantiate":    func() error { _, err := g.Instantiate(dev); return err },
		"Graph.Destroy":        g.Destroy,
		"Exec.Launch":          func() error { return e.Launch(nil) },
		"Exec.SetKernelParams": func() error { return e.SetKernelParams(n, k) },
		"Exec.Destroy":         e.Destroy,
		"BeginCapture":         func() error { return graph.BeginCapture(nil) },
		"EndCapture":           func() error { _, err := graph.EndCapture(nil); return err },
	}
	for name, f := range ops {
		var err error
		if assert.NotPanics(t, func() { err = f() }, name) {
			assert.Error(t, err, name)
			assert.ErrorContains(t, err, "nil", name)
		}
	}

	// A nil node as a dependency is refused by name.
	_, err := graph.New().AddEmpty(n)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "dependency 0 is nil")
}
