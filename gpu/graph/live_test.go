package graph_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type addArgs struct {
	Out rocr.Ptr[float32]
	V   float32
	N   int32
}

func addKernel(name string) *kernel.Kernel {
	return kernel.Define(name, func(g *kernel.Block, a *addArgs) {
		lo, hi := g.Span(0, int(a.N))
		out := a.Out.Slice(g, lo, hi)
		for i := range out {
			out[i] += a.V
		}
	})
}

// TestReplayChecksEveryKernel: a replay asks each kernel once whether it
// can run (nodes of one kernel share the question), and still asks every
// kernel: unloading the module of the one node among many of another
// kernel fails the replay, naming it.
// Its kernels are Go kernels: it runs on the cpu agent whatever the
// machine has (the check does not depend on the device).
func TestReplayChecksEveryKernel(t *testing.T) {
	require.NoError(t, gpu.Shutdown())
	t.Setenv("HIPGO_DRIVER", "cpu")
	dev, _ := setup(t)
	ma, err := module.Load(dev, kernel.NewSet("a", addKernel("add_a")))
	require.NoError(t, err)
	defer func() { _ = ma.Unload() }()
	mb, err := module.Load(dev, kernel.NewSet("b", addKernel("add_b")))
	require.NoError(t, err)
	fa, err := ma.Function("add_a")
	require.NoError(t, err)
	fb, err := mb.Function("add_b")
	require.NoError(t, err)
	out, err := buffer.New[float32](dev, 64)
	require.NoError(t, err)
	defer out.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, stream.Fill(s, out, float32(0)))

	g := graph.New()
	var prev *graph.Node
	for i := range 9 {
		f := fa
		if i == 4 {
			f = fb
		}
		var deps []*graph.Node
		if prev != nil {
			deps = append(deps, prev)
		}
		prev, err = g.AddKernel(graph.Kernel{Func: f, Grid: gpu.D1(1), Block: gpu.D1(64), Args: []any{out, float32(1), int32(64)}}, deps...)
		require.NoError(t, err)
	}
	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	require.NoError(t, e.Launch(s))
	require.NoError(t, s.Synchronize())
	host := make([]float32, 64)
	require.NoError(t, out.CopyTo(host))
	assert.InDelta(t, 9, host[0], 0)

	require.NoError(t, mb.Unload())
	err = e.Launch(s)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	assert.ErrorContains(t, err, "add_b")
}
